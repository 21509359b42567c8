import { createWriteStream } from 'node:fs'
import { PRIVATE_DIR, PRIVATE_FILE } from '../lib/files.ts'
import { mkdir, rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { Readable, Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import busboy from 'busboy'
import type { OpenAPIV3 } from 'openapi-types'
import { AppError, invalid } from '../lib/errors.ts'
import { createUtf8Check } from '../lib/utf8-check.ts'

export interface Upload {
  bytes: number
  /** The name the client gave the file (multipart only). */
  fileName: string | null
  /** The form's text fields (multipart only), by name. */
  fields: Record<string, string>
}

const CSV_TYPES = /^(text\/csv|application\/csv)\s*(;|$)/i
const MULTIPART = /^multipart\/form-data\s*;/i
const FILE_FIELD = 'file'

/**
 * The OpenAPI request body of a route that takes a CSV upload. The handler streams the body to
 * disk itself, so it has no schema for Elysia to check; this documents it.
 */
export const csvUploadBody = (fields: Record<string, OpenAPIV3.SchemaObject> = {}): OpenAPIV3.RequestBodyObject => ({
  required: true,
  content: {
    'text/csv': { schema: { type: 'string' } },
    'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' }, ...fields }, required: ['file'] } },
  },
})

export const CSV_UPLOAD_BODY = csvUploadBody()

const tooLarge = (limit: number) =>
  new AppError(413, 'PAYLOAD_TOO_LARGE', `The file is larger than ${limit / 1024 / 1024} MiB`, {
    errors: [{ field: 'file', message: `is larger than ${limit / 1024 / 1024} MiB`, code: 'too_big' }],
    suggestion: 'Split the file into smaller ones and import each.',
  })

const notUtf8 = (line: number) =>
  new AppError(422, 'VALIDATION_ERROR', `file: is not UTF-8 text: line ${line} holds bytes that are not UTF-8`, {
    errors: [{ field: 'file', message: `is not UTF-8 text: line ${line} holds bytes that are not UTF-8`, code: 'invalid_value' }],
    suggestion: 'Save the file as UTF-8 (in Excel: "CSV UTF-8"; in LibreOffice: character set Unicode (UTF-8)) and upload it again.',
  })

/**
 * Streams a CSV upload to `target` without holding it in memory: the raw body (text/csv), or the
 * `file` field of a multipart form (what a browser upload sends). More than `limit` bytes is a
 * 413, another content type a 415, bytes that are not UTF-8 a 422 (all found while the bytes
 * pass); a failed upload leaves no file behind.
 */
export async function receiveCsvUpload(request: Request, target: string, limit: number): Promise<Upload> {
  const type = request.headers.get('content-type') ?? ''
  const multipart = MULTIPART.test(type)
  if (!multipart && !CSV_TYPES.test(type)) {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `An import takes a CSV file, not ${type ? type.split(';')[0] : 'a body without a Content-Type'}`, {
      suggestion: 'Send the CSV as the body with Content-Type: text/csv, or as the field "file" of a multipart/form-data form.',
    })
  }
  await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR })
  try {
    const body = request.body ? Readable.fromWeb(request.body as never) : Readable.from([])
    if (!multipart) return { bytes: await save(body, target, limit), fileName: null, fields: {} }
    return await saveFormFile(body, type, target, limit)
  } catch (error) {
    await rm(target, { force: true })
    throw error
  }
}

/** Writes `source` to `target`, failing past `limit` bytes or on bytes that are not UTF-8; returns the bytes written. */
async function save(source: Readable, target: string, limit: number): Promise<number> {
  let bytes = 0
  const utf8 = createUtf8Check()
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length
      if (bytes > limit) return done(tooLarge(limit))
      const bad = utf8.push(chunk)
      done(bad === undefined ? null : notUtf8(bad), chunk)
    },
    flush(done) {
      const bad = utf8.end()
      done(bad === undefined ? null : notUtf8(bad))
    },
  })
  await pipeline(source, counter, createWriteStream(target, { mode: PRIVATE_FILE }))
  return bytes
}

async function saveFormFile(body: Readable, contentType: string, target: string, limit: number): Promise<Upload> {
  let form: Writable
  try {
    form = busboy({ headers: { 'content-type': contentType }, limits: { files: 1, fields: 20, parts: 30 } })
  } catch {
    throw invalid('body', 'the multipart form cannot be read: its Content-Type has no boundary')
  }
  let saved: Promise<Upload> | undefined
  const fields: Record<string, string> = {}
  form.on('field', (name: string, value: string) => {
    fields[name] = value
  })
  form.on('file', (name: string, stream: Readable, info: busboy.FileInfo) => {
    if (name !== FILE_FIELD || saved) return void stream.resume()
    saved = save(stream, target, limit).then((bytes) => ({ bytes, fileName: info.filename ?? null, fields }))
    // The form can go no further once its file cannot be saved: `saved` says why.
    saved.catch((error) => form.destroy(error))
  })
  try {
    await pipeline(body, form)
  } catch (error) {
    if (saved) await saved
    if (error instanceof AppError) throw error
    throw invalid('body', `the multipart form cannot be read: ${(error as Error).message}`)
  }
  if (!saved) throw invalid('file', 'the form has no file field: send the CSV as the field named "file"')
  return saved
}
