import { createAccount } from '../../src/core/accounts/accounts.service.ts'
import { hashPassword } from '../../src/core/accounts/password.ts'
import type { TestApp, TestResponse } from './app.ts'

export const PASSWORD = 'correct horse battery staple'

/** A signed-in browser: its cookie and the CSRF token its sign-in returned. */
export interface Browser {
  cookie: string
  csrf: string
  accountId: string
  /** The headers of its requests: the cookie, the CSRF token unless `csrf: false`, the project when given. */
  headers(options?: { project?: number | string; csrf?: boolean }): Record<string, string>
}

/** The `name=value` of a Set-Cookie header. */
export const cookieOf = (response: { headers: Headers }) => response.headers.get('set-cookie')?.split(';')[0] ?? ''

export const browserOf = (response: TestResponse): Browser => {
  const cookie = cookieOf(response)
  const csrf = response.body.csrfToken as string
  return {
    cookie,
    csrf,
    accountId: response.body.account.id,
    headers: ({ project, csrf: withCsrf = true } = {}) => ({
      cookie,
      ...(withCsrf && { 'x-csrf-token': csrf }),
      ...(project !== undefined && { 'x-project-id': String(project) }),
    }),
  }
}

/** An account made as the CLI makes one, with PASSWORD. */
export async function makeAccount(t: TestApp, email: string, password = PASSWORD) {
  const hash = await hashPassword(password)
  return t.app.writer.run((trx) => createAccount(trx, email, hash, Date.now()))
}

export async function signIn(t: TestApp, email: string, password = PASSWORD, extra: Record<string, unknown> = {}): Promise<Browser> {
  const response = await t.request('POST', '/api/v1/auth/sign-in', { body: { email, password, ...extra } })
  if (response.status !== 200) throw new Error(`sign-in of ${email}: ${response.status} ${JSON.stringify(response.body)}`)
  return browserOf(response)
}
