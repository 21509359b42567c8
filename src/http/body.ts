import { AppError } from '../lib/errors.ts'

export const DEFAULT_BODY_LIMIT = 1024 * 1024

const tooLarge = (limit: number) =>
  new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${limit / 1024 / 1024} MiB`)

/** Refuses a declared Content-Length over the limit before any of the body is read. */
export function checkDeclaredLength(request: Request, limit: number): void {
  const declared = Number(request.headers.get('content-length') ?? 0)
  if (declared > limit) throw tooLarge(limit)
}

/**
 * Reads a JSON body, counting bytes as they arrive so that a body without a Content-Length is cut
 * off at the limit too. An empty body is `undefined`.
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  if (!request.body) return undefined
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of request.body) {
    size += chunk.byteLength
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  if (size === 0) return undefined
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks))
  try {
    return JSON.parse(text)
  } catch {
    throw new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON')
  }
}
