/** A field-level validation finding, as it appears in the `errors` array of an error body. */
export interface FieldError {
  field: string
  message: string
  /**
   * What kind of problem, in the vocabulary Plunk's errors use (zod's issue codes): `required`,
   * `invalid_type`, `too_small`, `too_big`, `invalid_string`, `invalid_enum_value`,
   * `unrecognized_keys`; `invalid_value` when a rule of ours refused the value.
   */
  code?: string
}

export interface AppErrorDetails {
  errors?: FieldError[]
  suggestion?: string
  headers?: Record<string, string>
}

/**
 * The one error type the application throws on purpose. The HTTP layer turns it into the error
 * body; the CLI prints its message. Anything else that escapes is a 500 with no internals shown.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: AppErrorDetails = {},
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export const notFound = (what: string) => new AppError(404, 'NOT_FOUND', `${what} not found`)

export const conflict = (message: string, suggestion?: string) =>
  new AppError(409, 'CONFLICT', message, { suggestion })

/** A 422 naming the field; `code` says what kind of problem when more is known than "a rule refused it" (invalid_value). */
export const invalid = (field: string, message: string, code?: string) =>
  new AppError(422, 'VALIDATION_ERROR', `${field}: ${message}`, { errors: [{ field, message, ...(code && { code }) }] })
