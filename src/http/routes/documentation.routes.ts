import { Elysia } from 'elysia'
import { pathOf } from '../request-body.ts'
import { DOCS_HEADERS, STYLESHEET, STYLESHEET_ROUTE } from '../docs/doc-layout.ts'
import { docAt, DOCS_ROUTE } from '../docs/doc-pages.ts'
import { folderView, notFoundView, pageView, searchView } from '../docs/doc-views.ts'
import { sendStaticFile, staticFile, type StaticFile } from '../static-file.ts'

/**
 * The documentation, served offline under /docs: README.md and every page of docs/, carried in
 * the binary (src/http/docs/sources.ts), so that an operator with no internet has them. Public, like
 * the API document: no route here uses the authentication of src/http/auth.ts, and none is part of
 * the API, so none is in the OpenAPI document.
 */

const HTML = 'text/html; charset=utf-8'
/** The pages change only with a new version of the server: checked every time, cheap to answer. */
const REVALIDATE = 'no-cache'

const encode = (text: string) => new TextEncoder().encode(text)

/** Each page and folder list rendered and gzipped at its first request, then kept. */
const rendered = new Map<string, StaticFile>()
let stylesheet: StaticFile | undefined

function documentAt(route: string): StaticFile | undefined {
  const cached = rendered.get(route)
  if (cached) return cached
  const doc = docAt(route)
  if (!doc) return undefined
  const file = staticFile(encode('text' in doc ? pageView(doc) : folderView(doc)), HTML)
  rendered.set(route, file)
  return file
}

export const docsRoutes = () => {
  const html = (body: string, status: number, requestId: unknown) =>
    new Response(body, { status, headers: { ...DOCS_HEADERS, 'content-type': HTML, 'cache-control': REVALIDATE, 'x-request-id': String(requestId) } })
  const serve = ({ request, set }: { request: Request; set: { headers: Record<string, unknown> } }) => {
    const requestId = set.headers['x-request-id']
    const path = pathOf(request)
    // One address per page: /docs/features/ is sent to /docs/features.
    if (path.length > DOCS_ROUTE.length && path.endsWith('/')) {
      return new Response(null, { status: 301, headers: { location: path.replace(/\/+$/, ''), 'x-request-id': String(requestId) } })
    }
    const file = documentAt(path)
    return file ? sendStaticFile(request, file, DOCS_HEADERS, REVALIDATE, requestId) : html(notFoundView(path), 404, requestId)
  }
  const hidden = { detail: { hide: true } }
  return new Elysia({ name: 'docs' })
    .get(STYLESHEET_ROUTE, ({ request, set }) => {
      stylesheet ??= staticFile(encode(STYLESHEET), 'text/css; charset=utf-8')
      return sendStaticFile(request, stylesheet, DOCS_HEADERS, REVALIDATE, set.headers['x-request-id'])
    }, hidden)
    .get(`${DOCS_ROUTE}/search`, ({ query, set }) => html(searchView(String(query.q ?? '')), 200, set.headers['x-request-id']), hidden)
    .get(DOCS_ROUTE, serve, hidden)
    .get(`${DOCS_ROUTE}/*`, serve, hidden)
}
