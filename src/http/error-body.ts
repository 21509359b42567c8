import { isUnstorableText } from '../db/text.ts'
import { AppError, type FieldError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import { defaultSuggestion, issueCode } from './error-codes.ts'
import { asSentence, issueSentence } from './field-sentences.ts'

const MAX_MESSAGE = 1000
const MAX_ERRORS = 20
// Room for the deepest path a rule names (a segment condition ten levels down), not for an echo.
const MAX_FIELD = 300
/** Schema paths are cut shorter: past this, they are the attacker's nesting, not a field. */
const MAX_SCHEMA_PATH = 100

/** Messages quote what was sent: a megabyte sent is not a megabyte answered. A cut never splits a character. */
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, '')}…` : text)

/**
 * The error body of DESIGN.md: the interface's fields, plus `error` for useSend's clients. Every
 * body says what to do next (`suggestion`), and every field error what kind it is (`code`).
 */
export function errorBody(requestId: string, error: AppError) {
  const message = cut(error.message, MAX_MESSAGE)
  const errors = error.details.errors
    ?.slice(0, MAX_ERRORS)
    // Each field's message is a sentence about it, whoever wrote it (a schema, or a rule of core).
    .map((e) => ({ field: cut(e.field, MAX_FIELD), message: cut(asSentence(e.field, e.message), MAX_MESSAGE), code: e.code ?? 'invalid_value' }))
  return {
    success: false,
    code: error.code,
    message,
    statusCode: error.status,
    requestId,
    ...(errors && { errors }),
    suggestion: cut(error.details.suggestion || defaultSuggestion(error.code, error.status), MAX_MESSAGE),
    error: { code: error.code, message },
  }
}

interface ValidationIssue {
  path: string
  message: string
  /** TypeBox's ValueErrorType. */
  type?: number
  schema?: { error?: unknown; 'x-field'?: string; enum?: unknown; [keyword: string]: unknown }
}

/** Elysia's validation error as our field list, one message per field: `/data/plan` is `data.plan`. */
export function fieldErrors(on: string, issues: ValidationIssue[]): FieldError[] {
  const byField = new Map<string, FieldError>()
  for (const issue of issues) {
    const path = issue.path.split('/').filter(Boolean).join('.') || issue.schema?.['x-field'] || on
    const field = cut(path, MAX_SCHEMA_PATH)
    const custom = issue.schema?.error
    const isEnum = Array.isArray(issue.schema?.enum)
    // A choice names its choices; else the schema's own words for its rule, else the rule said in words.
    const message = !isEnum && typeof custom === 'string' ? asSentence(field, custom) : issueSentence(field, issue)
    if (!byField.has(field)) byField.set(field, { field, message, code: isEnum ? 'invalid_enum_value' : issueCode(issue.type) })
  }
  return [...byField.values()]
}

/**
 * Whatever was thrown, as an AppError; unexpected errors are logged and hidden. The log names the
 * route pattern, not the path: paths of tracking and unsubscribe links carry tokens.
 */
export function toAppError(code: string | number, error: unknown, request: Request, logger: Logger, route?: string): AppError {
  const path = `${request.method} ${new URL(request.url).pathname}`
  const where = `${request.method} ${route || 'unmatched'}`
  if (error instanceof AppError) return error
  const cause = (error as { cause?: unknown })?.cause
  if (code === 'PARSE') {
    return cause instanceof AppError ? cause : new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON')
  }
  if (code === 'NOT_FOUND') {
    return new AppError(404, 'NOT_FOUND', `No route for ${path}`, { suggestion: 'Check the method and the path: /swagger lists every route.' })
  }
  if (code === 'VALIDATION' && isForm(request.headers.get('content-type'))) {
    return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes a JSON body', {
      suggestion: 'Send the body as JSON with the header Content-Type: application/json.',
    })
  }
  if (code === 'VALIDATION' && (error as { type?: string }).type === 'response') {
    // Our answer did not match its own schema: our fault, not the caller's. Elysia's message holds
    // the answer itself, which may be a new API key or a signing secret: only the issues are logged.
    const issues = ((error as { all?: ValidationIssue[] }).all ?? []).slice(0, 20).map((issue) => `${issue.path || '/'}: ${issue.message}`)
    logger.error('HTTP', 'response failed its schema', { route: where, issues })
    return new AppError(500, 'INTERNAL_SERVER_ERROR', 'Something went wrong on our side; the request id helps us find it')
  }
  if (code === 'VALIDATION') {
    const validation = error as { type: string; all: ValidationIssue[] }
    const on = validation.type === 'query' ? 'query' : validation.type === 'params' ? 'path' : 'body'
    const errors = fieldErrors(on, validation.all)
    return new AppError(422, 'VALIDATION_ERROR', errors.map((e) => e.message).join(' '), { errors })
  }
  if (isUnstorableText(error)) {
    return new AppError(422, 'VALIDATION_ERROR', 'Text holds a character that PostgreSQL cannot store, a NUL (U+0000)')
  }
  logger.error('HTTP', 'unhandled error', { route: where, error: (error as Error)?.stack ?? String(error) })
  return new AppError(500, 'INTERNAL_SERVER_ERROR', 'Something went wrong on our side; the request id helps us find it')
}

/** Form bodies are parsed as forms (for the few routes that take them); everything else is JSON. */
const isForm = (contentType: string | null) =>
  /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(contentType ?? '')
