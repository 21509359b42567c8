/*
 * Files the server sends as they are (the console's, the API document viewer's): typed and
 * gzipped once, then each request only picks the copy the client takes.
 */

/** A file ready to send: as is, and gzipped for the browsers that take it (all do). */
export interface StaticFile {
  // Blobs: a Response takes its bytes without using them up, so one serves every request.
  body: Blob
  gzip: Blob
  type: string
}

/** Names that carry a version or a hash never change content: a year, never revalidated. */
export const IMMUTABLE = 'public, max-age=31536000, immutable'

export const staticFile = (bytes: Uint8Array<ArrayBuffer>, type: string): StaticFile => ({
  body: new Blob([bytes], { type }),
  gzip: new Blob([Bun.gzipSync(bytes, { level: 9 })], { type }),
  type,
})

const acceptsGzip = (request: Request) => /\bgzip\b/i.test(request.headers.get('accept-encoding') ?? '')

/** The file's answer, gzipped when the client takes it, with the page's `headers` (its policy) beside. */
export function sendStaticFile(request: Request, file: StaticFile, headers: Record<string, string>, cacheControl: string, requestId: unknown): Response {
  const gzip = acceptsGzip(request)
  return new Response(request.method === 'HEAD' ? null : gzip ? file.gzip : file.body, {
    headers: {
      ...headers,
      'content-type': file.type,
      'cache-control': cacheControl,
      vary: 'accept-encoding',
      'x-request-id': String(requestId),
      ...(gzip && { 'content-encoding': 'gzip' }),
    },
  })
}
