import { AppError } from '../lib/errors.ts'

export const DEFAULT_BODY_LIMIT = 1024 * 1024
export const SEND_BODY_LIMIT = 10 * 1024 * 1024
export const IMPORT_BODY_LIMIT = 512 * 1024 * 1024

/** Routes that carry attachments take larger bodies. */
const SEND_ROUTES = new Set(['/v1/send', '/api/v1/emails', '/api/v1/emails/batch'])

/** Routes that stream their body themselves (to disk): it is not parsed for them. */
const STREAMED_ROUTES = new Set(['/contacts/import'])

export const bodyLimitFor = (path: string) =>
  STREAMED_ROUTES.has(path) ? IMPORT_BODY_LIMIT : SEND_ROUTES.has(path) ? SEND_BODY_LIMIT : DEFAULT_BODY_LIMIT

export const streamsItsBody = (path: string) => STREAMED_ROUTES.has(path)

const tooLarge = (limit: number) =>
  new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${limit / 1024 / 1024} MiB`)

/** Refuses a declared Content-Length over the limit before any of the body is read. */
export function checkDeclaredLength(request: Request, limit: number): void {
  const declared = Number(request.headers.get('content-length') ?? 0)
  if (declared > limit) throw tooLarge(limit)
}

/**
 * Parses a request body within `limit` bytes: URL-encoded forms as objects, multipart left to
 * Elysia once its declared length has passed the check, anything else as JSON. A declared
 * Content-Length has already been checked, so such a body is read whole; one without is counted
 * as it arrives and cut off at the limit. An empty body is `undefined`.
 */
export async function parseBody(request: Request, contentType: string, limit: number): Promise<unknown> {
  if (!request.body) return undefined
  const declared = request.headers.has('content-length')
  if (/^multipart\/form-data\b/i.test(contentType)) {
    if (declared) return undefined
    throw new AppError(411, 'LENGTH_REQUIRED', 'A multipart body needs a Content-Length header')
  }
  const text = declared ? await request.text() : await readCounted(request.body, limit)
  if (text.length === 0) return undefined
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType)) return Object.fromEntries(new URLSearchParams(text))
  try {
    return JSON.parse(text)
  } catch {
    throw new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON')
  }
}

async function readCounted(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.byteLength
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  return new TextDecoder().decode(Buffer.concat(chunks))
}
