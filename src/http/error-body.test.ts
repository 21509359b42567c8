import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { createLogger } from '../lib/logger.ts'
import { AppError, invalid } from '../lib/errors.ts'
import { errorBody, toAppError } from './error-body.ts'

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

describe('the error body', () => {
  test('quotes at most a kilobyte of what was sent, however much the message would quote', () => {
    const huge = 'x'.repeat(900_000)
    const body = errorBody('req_1', invalid(`steps[0].${huge}`, `goes to '${huge}'`))
    expect(JSON.stringify(body).length).toBeLessThan(4096)
    expect(body.message).toEndWith('…')
    expect(body.errors![0]!.field).toHaveLength(300)
    expect(body.error.message).toBe(body.message)
  })

  test('a cut never leaves half of a surrogate pair', () => {
    const body = errorBody('req_1', new AppError(422, 'VALIDATION_ERROR', 'x'.repeat(998) + '📰📰'))
    expect(body.message.isWellFormed()).toBe(true)
    expect(body.message).toHaveLength(999)
  })

  test('lists at most 20 field errors', () => {
    const errors = Array.from({ length: 500 }, (_, i) => ({ field: `[${i}].email`, message: 'is not valid' }))
    expect(errorBody('req_1', new AppError(422, 'VALIDATION_ERROR', 'many', { errors })).errors).toHaveLength(20)
  })
})
