import { AppError, invalid } from '../lib/errors.ts'
import { findJsonFlaw } from '../lib/json-check.ts'

export const DEFAULT_BODY_LIMIT = 1024 * 1024
export const SEND_BODY_LIMIT = 10 * 1024 * 1024
export const IMPORT_BODY_LIMIT = 512 * 1024 * 1024
/** A suppression list is read whole: this is far more addresses than any list holds. */
export const SUPPRESSION_IMPORT_LIMIT = 5 * 1024 * 1024
/** Objects and arrays inside each other: no request needs more, and deeper ones can crash a parser. */
export const MAX_BODY_DEPTH = 64

/** Routes that carry attachments take larger bodies. */
const SEND_ROUTES = new Set(['/v1/send', '/api/v1/emails', '/api/v1/emails/batch'])

/** Routes that stream their body themselves (to disk), and the most each takes: it is not parsed for them. */
const STREAMED_ROUTES = new Map([
  ['/contacts/import', IMPORT_BODY_LIMIT],
  ['/api/v1/suppressions/import', SUPPRESSION_IMPORT_LIMIT],
])

export const bodyLimitFor = (path: string) => STREAMED_ROUTES.get(path) ?? (SEND_ROUTES.has(path) ? SEND_BODY_LIMIT : DEFAULT_BODY_LIMIT)

export const streamsItsBody = (path: string) => STREAMED_ROUTES.has(path)

/** PUT and PATCH routes that act on what their path names and take no body. */
const BODILESS_UPDATES = [/^\/api\/v1\/domains\/[^/]+\/verify$/]

/** The request's path, without parsing the whole URL. */
export const pathOf = (request: Request) => {
  const url = request.url
  const start = url.indexOf('/', url.indexOf('//') + 2)
  const end = url.indexOf('?', start)
  return url.slice(start, end < 0 ? undefined : end)
}

const tooLarge = (limit: number) =>
  new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${limit / 1024 / 1024} MiB`, {
    errors: [{ field: 'body', message: `is larger than ${limit / 1024 / 1024} MiB`, code: 'too_big' }],
  })

/** Refuses a declared Content-Length over the limit before any of the body is read. */
export function checkDeclaredLength(request: Request, limit: number): void {
  const declared = Number(request.headers.get('content-length') ?? 0)
  if (declared > limit) throw tooLarge(limit)
}

/**
 * The body of a request to `route` (the router's match, not the path as spelled) as Elysia's parse
 * hook gives it, once a declared length has passed the route's limit: `null` (a parsed body to Elysia) for a
 * route that reads its stream itself, else parseBody's answer within the route's limit. A PUT or
 * PATCH that takes a body must send an object: without one a schema of optional fields, filled
 * with its defaults, would pass as an update of nothing.
 */
export async function readBody(request: Request, contentType: string, route: string): Promise<unknown> {
  checkDeclaredLength(request, bodyLimitFor(route))
  if (streamsItsBody(route)) return null
  // Elysia gives the media type without its parameters: the charset is read from the header.
  const body = await parseBody(request, request.headers.get('content-type') ?? contentType, bodyLimitFor(route))
  const update = request.method === 'PUT' || request.method === 'PATCH'
  if (update && !BODILESS_UPDATES.some((pattern) => pattern.test(route)) && !/^multipart\/form-data\b/i.test(contentType)) {
    if (body === undefined) throw invalid('body', 'is required: a JSON object of the fields to change')
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('body', 'must be a JSON object')
  }
  return body
}

/**
 * Parses a request body within `limit` bytes: URL-encoded forms as objects, multipart left to
 * Elysia once its declared length has passed the check, anything else as JSON. A declared
 * Content-Length has already been checked, so such a body is read whole; one without is counted
 * as it arrives and cut off at the limit. An empty body is `undefined`. The text must be UTF-8,
 * and a JSON body within MAX_BODY_DEPTH levels with only well-formed strings (see checkJson).
 */
export async function parseBody(request: Request, contentType: string, limit: number): Promise<unknown> {
  if (!request.body) return undefined
  const declared = request.headers.has('content-length')
  if (/^multipart\/form-data\b/i.test(contentType)) {
    if (declared) return undefined
    throw new AppError(411, 'LENGTH_REQUIRED', 'A multipart body needs a Content-Length header')
  }
  const text = utf8(declared ? new Uint8Array(await request.arrayBuffer()) : await readCounted(request.body, limit))
  if (text.length === 0) return undefined
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType)) return Object.fromEntries(new URLSearchParams(text))
  checkCharset(contentType)
  return checkJson(parseJson(text))
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    // The parser's own stack ran out: nesting far past MAX_BODY_DEPTH.
    if (error instanceof RangeError) throw tooDeep('body')
    throw new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON')
  }
}

const tooDeep = (field: string) => invalid(field, `is nested more than ${MAX_BODY_DEPTH} levels deep`)

/**
 * Refuses what would crash or corrupt something further on: nesting that recursive code (schema
 * validation, JSON.stringify, SQLite's JSON functions) cannot follow, and lone UTF-16 surrogates,
 * which no UTF-8 column, header or DNS query can hold. The depth is named by the top-level field it
 * is under (`data`, or `[3].properties` in a list); an ill-formed string by its own path.
 */
function checkJson(value: unknown): unknown {
  const flaw = findJsonFlaw(value, MAX_BODY_DEPTH)
  if (flaw?.problem === 'too-deep') throw tooDeep(/^(\[\d+\])?\.?[^.[]*/.exec(flaw.path)![0] || 'body')
  if (flaw) throw invalid(flaw.path || 'body', 'is not well-formed Unicode: it holds a lone UTF-16 surrogate')
  return value
}

/** JSON is UTF-8 (RFC 8259); a body that says it is something else is refused rather than misread. */
function checkCharset(contentType: string): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase()
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `The request body must be UTF-8, not ${charset.slice(0, 40)}`, {
      suggestion: 'Send the body as UTF-8 with the header Content-Type: application/json.',
    })
  }
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true })

function utf8(bytes: Uint8Array): string {
  try {
    return strictDecoder.decode(bytes)
  } catch {
    throw new AppError(400, 'INVALID_ENCODING', 'The request body is not valid UTF-8')
  }
}

async function readCounted(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.byteLength
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
