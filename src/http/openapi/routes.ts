import { Elysia } from 'elysia'
import type { Config } from '../../config/config-schema.ts'
import { AppError } from '../../lib/errors.ts'
import { pathOf } from '../request-body.ts'
import { IMMUTABLE, sendStaticFile } from '../static-file.ts'
import { buildDocument, type DocumentOptions } from './document.ts'
import type { JsonObject } from './generate.ts'
import { VIEWER_ASSETS, VIEWER_HEADERS, viewerFile, viewerPage } from './viewer.ts'

/**
 * The API's own description: the OpenAPI document at /swagger/json and the page that shows it at
 * /swagger, both from this server alone. Neither is part of the API, so neither is in the document.
 */

/** The public URL when one is set; "/" (wherever the page was loaded from) when it is the listener's own address. */
export function serverUrlOf(config: Pick<Config, 'publicUrl' | 'httpHost' | 'httpPort'>): string {
  return config.publicUrl === `http://${config.httpHost}:${config.httpPort}` ? '/' : config.publicUrl
}

export const apiDocumentRoutes = (config: Config, options: Omit<DocumentOptions, 'serverUrl'>) => {
  const app = new Elysia({ name: 'api-document' })
  // Built at the first request, when every route is there, and kept: the routes do not change.
  let document: string | undefined
  const hidden = { detail: { hide: true } }
  return app
    .get(
      '/swagger/json',
      ({ set }) => {
        document ??= JSON.stringify(buildDocument(app, { ...options, serverUrl: serverUrlOf(config) }))
        return new Response(document, { headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': String(set.headers['x-request-id']) } })
      },
      hidden,
    )
    .get(
      '/swagger',
      ({ set }) =>
        new Response(viewerPage(String((options.info as JsonObject).title)), {
          headers: { ...VIEWER_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': String(set.headers['x-request-id']) },
        }),
      hidden,
    )
    .get(
      '/swagger/assets/*',
      async ({ request, set }) => {
        const path = pathOf(request)
        const file = path.startsWith(VIEWER_ASSETS) ? await viewerFile(path.slice(VIEWER_ASSETS.length)) : undefined
        if (!file) throw new AppError(404, 'NOT_FOUND', `No route for GET ${path}`)
        return sendStaticFile(request, file, VIEWER_HEADERS, IMMUTABLE, set.headers['x-request-id'])
      },
      hidden,
    )
}
