/**
 * The API's error body, as the console reads it: `{ code, message, errors: [{ field, message }] }`
 * (with requestId and suggestion), and what becomes of an answer that is not one.
 */

export interface FieldProblem {
  field: string
  message: string
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldProblem[] = [],
    readonly requestId?: string,
    readonly suggestion?: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** The first message the API gave for `field`, shown beside that field's control. */
  fieldMessage(field: string): string | undefined {
    return this.fields.find((problem) => problem.field === field)?.message
  }

  /**
   * What cannot be shown beside one of `shown` (the form's fields): the whole message when no
   * field was named, else the problems of fields the form does not have, each with its name.
   */
  formMessages(shown: readonly string[]): string[] {
    if (this.fields.length === 0) return [this.suggestion ? `${this.message}. ${this.suggestion}` : this.message]
    return this.fields.filter((problem) => !shown.includes(problem.field)).map((problem) => `${problem.field}: ${problem.message}`)
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined)

/** Words for a status whose answer said nothing we can show (a proxy's HTML page, an empty body). */
function statusWords(status: number): string {
  if (status === 401) return 'You are not signed in, or your session has ended'
  if (status === 403) return 'You may not do this'
  if (status === 404) return 'Not found'
  if (status === 413) return 'Too large'
  if (status === 429) return 'Too many requests: wait a moment and try again'
  if (status >= 500) return `The server failed (${status}); try again in a moment`
  return `The request failed (${status})`
}

/** An error answer, whatever its body, as an ApiError. */
export function toApiError(status: number, body: unknown, requestId?: string | null): ApiError {
  if (!isRecord(body)) return new ApiError(status, `HTTP_${status}`, statusWords(status), [], requestId ?? undefined)
  const nested = isRecord(body.error) ? body.error : {}
  const code = text(body.code) ?? text(nested.code) ?? `HTTP_${status}`
  const message = text(body.message) ?? text(nested.message) ?? statusWords(status)
  const fields = Array.isArray(body.errors)
    ? body.errors.filter(isRecord).flatMap((problem) => (text(problem.field) && text(problem.message) ? [{ field: String(problem.field), message: String(problem.message) }] : []))
    : []
  return new ApiError(status, code, message, fields, text(body.requestId) ?? requestId ?? undefined, text(body.suggestion))
}

/** A request that got no answer at all. */
export const networkError = (cause: unknown) =>
  new ApiError(0, 'NETWORK', `The server could not be reached${cause instanceof Error && cause.message ? ` (${cause.message})` : ''}; check your connection and try again`)
