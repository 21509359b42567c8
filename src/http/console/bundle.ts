import { join } from 'node:path'

/**
 * The web console as files: index.html and, under /console/assets/, the scripts and styles it
 * names, each with a content hash in its name. From source they are bundled here by Bun's own
 * bundler; the compiled binary carries the same files, made by scripts/build.ts.
 */

/** One file of the console: its name under ASSETS_PATH (index.html is served at /console/ instead). */
export interface ConsoleFile {
  name: string
  body: Uint8Array<ArrayBuffer>
}

export const ASSETS_PATH = '/console/assets/'
export const INDEX = 'index.html'
/** Where the compiled binary keeps the files (scripts/build.ts embeds a directory of this name). */
export const EMBEDDED_DIR = 'console'

const ENTRY = join(import.meta.dir, '..', '..', 'console', INDEX)
/** The script that sets the theme before the first paint: its own file (the CSP has no 'unsafe-inline'). */
const THEME_BOOT = join(import.meta.dir, '..', '..', 'console', 'boot', 'theme-boot.ts')
const THEME_BOOT_NAME = /^theme-boot-[\w-]+\.js$/

/**
 * index.html with the theme script first in its head, inline: it runs before the first paint, so
 * that paint already has the theme the person chose, and costs no request (a script file there
 * would hold back the first paint by a round trip). The policy allows it by its hash
 * (src/http/console/assets.ts). Bun's bundler would fold a script tag of the HTML into the deferred
 * module bundle, hence this step.
 */
function withThemeBoot(html: string, bootJs: string): string {
  return html.replace('<head>', `<head>\n  <script>${bootJs.trim()}</script>`)
}

/**
 * Bundles the console from src/console: minified for production, split so that a page's own code
 * (and a chart library) loads when the page is opened, the index naming its files by absolute
 * path so that any address under /console/ finds them.
 */
export async function bundleConsole(): Promise<ConsoleFile[]> {
  const built = await Bun.build({
    entrypoints: [ENTRY, THEME_BOOT],
    target: 'browser',
    splitting: true,
    minify: true,
    publicPath: ASSETS_PATH,
    naming: { entry: '[name]-[hash].[ext]', chunk: '[name]-[hash].[ext]', asset: '[name]-[hash].[ext]' },
    define: { 'process.env.NODE_ENV': '"production"' },
    throw: false,
  })
  if (!built.success) throw new AggregateError(built.logs, `the console did not build: ${built.logs.map(String).join('; ')}`)
  const files = await Promise.all(
    built.outputs.map(async (output) => {
      const html = output.path.endsWith('.html')
      const body = new Uint8Array(await output.arrayBuffer())
      // The index keeps its plain name: it is the one file found without a hash.
      if (html) return { name: INDEX, body: new TextEncoder().encode(stylesAfterShell(new TextDecoder().decode(body))) }
      return { name: output.path.replace(/^\.\//, ''), body }
    }),
  )
  const boot = files.find((file) => THEME_BOOT_NAME.test(file.name))
  const index = files.find((file) => file.name === INDEX)
  if (!boot || !index) throw new Error('the console built without its index or its theme script')
  index.body = new TextEncoder().encode(withThemeBoot(new TextDecoder().decode(index.body), new TextDecoder().decode(boot.body))) as Uint8Array<ArrayBuffer>
  return files.filter((file) => file !== boot)
}

const STYLESHEET_LINK = /[ \t]*<link\b[^>]*\brel="?stylesheet"?[^>]*>\n?/gi

/**
 * The index with its stylesheets moved from the head to the end of the body. A stylesheet in the
 * head holds back every paint until it has arrived (a second round trip, seconds on a slow link);
 * at the end of the body it holds back only what follows it, so the first-paint shell, drawn by the
 * page's own inline style, shows as soon as the HTML arrives. The scripts still wait for it before
 * running, so the app never draws unstyled.
 */
export function stylesAfterShell(html: string): string {
  const links = html.match(STYLESHEET_LINK) ?? []
  if (links.length === 0 || !html.includes('</body>')) return html
  const rest = html.replace(STYLESHEET_LINK, '')
  return rest.replace('</body>', `${links.map((link) => link.trim()).join('\n')}\n</body>`)
}

/** The files the compiled binary carries (empty when run from source). */
export async function embeddedConsole(): Promise<ConsoleFile[]> {
  const prefix = `${EMBEDDED_DIR}/`
  const files = Bun.embeddedFiles.filter((file) => (file as Blob & { name: string }).name.startsWith(prefix))
  return Promise.all(
    files.map(async (file) => ({ name: (file as Blob & { name: string }).name.slice(prefix.length), body: new Uint8Array(await file.arrayBuffer()) })),
  )
}
