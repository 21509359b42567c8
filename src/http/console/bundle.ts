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

/**
 * Bundles the console from src/console: minified for production, split so that a page's own code
 * (and a chart library) loads when the page is opened, the index naming its files by absolute
 * path so that any address under /console/ finds them.
 */
export async function bundleConsole(): Promise<ConsoleFile[]> {
  const built = await Bun.build({
    entrypoints: [ENTRY],
    target: 'browser',
    splitting: true,
    minify: true,
    publicPath: ASSETS_PATH,
    naming: { entry: '[name]-[hash].[ext]', chunk: '[name]-[hash].[ext]', asset: '[name]-[hash].[ext]' },
    define: { 'process.env.NODE_ENV': '"production"' },
    throw: false,
  })
  if (!built.success) throw new AggregateError(built.logs, `the console did not build: ${built.logs.map(String).join('; ')}`)
  return Promise.all(
    built.outputs.map(async (output) => ({
      // The index keeps its plain name: it is the one file found without a hash.
      name: output.path.endsWith('.html') ? INDEX : output.path.replace(/^\.\//, ''),
      body: new Uint8Array(await output.arrayBuffer()),
    })),
  )
}

/** The files the compiled binary carries (empty when run from source). */
export async function embeddedConsole(): Promise<ConsoleFile[]> {
  const prefix = `${EMBEDDED_DIR}/`
  const files = Bun.embeddedFiles.filter((file) => (file as Blob & { name: string }).name.startsWith(prefix))
  return Promise.all(
    files.map(async (file) => ({ name: (file as Blob & { name: string }).name.slice(prefix.length), body: new Uint8Array(await file.arrayBuffer()) })),
  )
}
