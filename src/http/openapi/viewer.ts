import bundlePath from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' }
import stylesPath from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' }
import viewerPackage from 'swagger-ui-dist/package.json' with { type: 'json' }
import { escapeHtml } from '../../lib/html.ts'
import { staticFile, type StaticFile } from '../static-file.ts'

/**
 * The API document's page: Swagger UI (swagger-ui-dist, pinned in package.json) served by this
 * server from its own files, so that it shows with no network. The files are imported as files:
 * `bun build --compile` embeds them in the binary, and from source they are read where npm put
 * them. Swagger UI works under the page's self-only policy with nothing refused (the browser test
 * checks it): 1.7 MB of script, 460 KB gzipped.
 */

/** Under /swagger/assets/<version>/: a new version is a new address, so a file never changes. */
export const VIEWER_ASSETS = `/swagger/assets/${viewerPackage.version}/`

/** Scripts, styles and fetches from this server only; no inline script; never framed. */
export const VIEWER_HEADERS = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const

/** Starts the viewer on the document; its own file, as the policy allows no inline script. */
const INIT = `window.ui = SwaggerUIBundle({
  url: '/swagger/json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // The default sends the document to swagger.io for a badge: nothing leaves this server.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
})
`

/** The page: the viewer's styles and scripts, by address. */
export const viewerPage = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${VIEWER_ASSETS}swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${VIEWER_ASSETS}swagger-ui-bundle.js"></script>
<script src="${VIEWER_ASSETS}init.js"></script>
</body>
</html>
`

const JS = 'text/javascript; charset=utf-8'
const SOURCES: Record<string, { type: string; bytes: () => Promise<Uint8Array> }> = {
  'swagger-ui-bundle.js': { type: JS, bytes: () => Bun.file(bundlePath).bytes() },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', bytes: () => Bun.file(stylesPath).bytes() },
  'init.js': { type: JS, bytes: async () => new TextEncoder().encode(INIT) },
}

const files = new Map<string, Promise<StaticFile>>()

/** A file of the viewer by name, read and gzipped at its first request; undefined for no such file. */
export function viewerFile(name: string): Promise<StaticFile> | undefined {
  const source = Object.hasOwn(SOURCES, name) ? SOURCES[name] : undefined
  if (!source) return undefined
  let file = files.get(name)
  if (!file) {
    file = source.bytes().then((bytes) => staticFile(new Uint8Array(bytes), source.type))
    // A failed read is tried again at the next request.
    file.catch(() => files.delete(name))
    files.set(name, file)
  }
  return file
}
