import { describe, expect, test } from 'bun:test'
import { ApiError, networkError, toApiError } from './api-errors.ts'

describe('toApiError', () => {
  test("reads the API's error body: code, message, field problems, request id and suggestion", () => {
    const error = toApiError(422, {
      success: false,
      code: 'VALIDATION_ERROR',
      message: 'email: must be an email address',
      statusCode: 422,
      requestId: 'req-1',
      suggestion: 'Check the address.',
      errors: [
        { field: 'email', message: 'must be an email address' },
        { field: 'password', message: 'must be at least 10 characters' },
      ],
      error: { code: 'VALIDATION_ERROR', message: 'email: must be an email address' },
    })
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', message: 'email: must be an email address', requestId: 'req-1', suggestion: 'Check the address.' })
    expect(error.fieldMessage('email')).toBe('must be an email address')
    expect(error.fieldMessage('password')).toBe('must be at least 10 characters')
    expect(error.fieldMessage('name')).toBeUndefined()
  })

  test('falls back to the nested error of useSend clients, then to words for the status', () => {
    expect(toApiError(409, { error: { code: 'CONFLICT', message: 'Exists already' } })).toMatchObject({ code: 'CONFLICT', message: 'Exists already' })
    expect(toApiError(502, '<html>Bad gateway</html>', 'from-header')).toMatchObject({ code: 'HTTP_502', message: 'The server failed (502); try again in a moment', requestId: 'from-header' })
    expect(toApiError(429, null).message).toBe('Too many requests: wait a moment and try again')
    expect(toApiError(401, {}).message).toBe('You are not signed in, or your session has ended')
  })

  test('ignores field problems that are not {field, message}', () => {
    const error = toApiError(422, { code: 'VALIDATION_ERROR', message: 'bad', errors: [{ field: 'a' }, 'text', { field: 'b', message: 'is required' }] })
    expect(error.fields).toEqual([{ field: 'b', message: 'is required' }])
  })
})

describe('formMessages', () => {
  const error = toApiError(422, {
    code: 'VALIDATION_ERROR',
    message: 'two problems',
    errors: [
      { field: 'email', message: 'is required' },
      { field: 'scheduledAt', message: 'must be in the future' },
    ],
  })

  test('leaves the fields the form shows to their controls and names the others', () => {
    expect(error.formMessages(['email'])).toEqual(['scheduledAt: must be in the future'])
    expect(error.formMessages(['email', 'scheduledAt'])).toEqual([])
  })

  test('is the message, with its suggestion, when the API named no field', () => {
    expect(toApiError(401, { code: 'UNAUTHORIZED', message: 'Wrong email or password', suggestion: 'Try again' }).formMessages(['email'])).toEqual(['Wrong email or password. Try again'])
  })

  test('a request that got no answer says so', () => {
    expect(networkError(new TypeError('Failed to fetch'))).toMatchObject({ status: 0, code: 'NETWORK' })
    expect(networkError(new TypeError('Failed to fetch')).message).toContain('could not be reached (Failed to fetch)')
  })
})
