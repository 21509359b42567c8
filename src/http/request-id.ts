import { randomToken } from '../lib/ids.ts'

const SANE = /^[A-Za-z0-9._:-]{1,128}$/

/** The caller's X-Request-Id when it is sane, else a new one. */
export const requestIdFor = (request: Request): string => {
  const given = request.headers.get('x-request-id')
  return given && SANE.test(given) ? given : `req_${randomToken(12)}`
}
