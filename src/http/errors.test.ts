import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { createLogger } from '../lib/logger.ts'
import { toAppError } from './errors.ts'

/** An app whose errors are handled and logged as the server's are, into `lines`. */
const appLogging = (lines: string[]) => {
  const logger = createLogger('debug', (line) => lines.push(line))
  return new Elysia().onError({ as: 'global' }, ({ code, error, request, route, set }) => {
    const failure = toAppError(code, error, request, logger, route)
    set.status = failure.status
    return failure.code
  })
}

describe('errors in the log', () => {
  test('an answer that fails its own schema is logged by its issues, never its values (it may hold a key)', async () => {
    const lines: string[] = []
    const app = appLogging(lines).get('/keys/:id', () => ({ key: 'sk_live_must_not_be_logged', n: 'not a number' }) as never, {
      response: { 200: t.Object({ key: t.String(), n: t.Number() }) },
    })
    const response = await app.handle(new Request('http://localhost/keys/42'))
    expect(response.status).toBe(500)
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', tag: 'HTTP', route: 'GET /keys/:id', issues: ['/n: Expected number'] })
    expect(lines[0]).not.toContain('sk_live_must_not_be_logged')
  })

  test('an unexpected error is logged with the route pattern, not the path and the token in it', async () => {
    const lines: string[] = []
    const app = appLogging(lines).get('/unsubscribe/:token', () => {
      throw new Error('boom')
    })
    expect((await app.handle(new Request('http://localhost/unsubscribe/tok-secret-123'))).status).toBe(500)
    expect(JSON.parse(lines[0]!)).toMatchObject({ tag: 'HTTP', msg: 'unhandled error', route: 'GET /unsubscribe/:token' })
    expect(lines[0]).not.toContain('tok-secret-123')
  })
})
