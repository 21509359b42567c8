import { extname } from 'node:path'
import { staticFile, type StaticFile } from '../static-file.ts'
import { bundleConsole, embeddedConsole, INDEX, type ConsoleFile } from './bundle.ts'

/** A console file ready to send. */
export type ConsoleAsset = StaticFile

export interface ConsoleAssets {
  index: ConsoleAsset
  /** By name under /console/assets/. */
  files: Map<string, ConsoleAsset>
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
}

/** The files, typed and compressed once, so that each request only sends bytes. */
export function prepareAssets(files: ConsoleFile[]): ConsoleAssets {
  const prepared = new Map<string, ConsoleAsset>()
  for (const file of files) {
    const type = TYPES[extname(file.name)] ?? 'application/octet-stream'
    prepared.set(file.name, staticFile(file.body, type))
  }
  const index = prepared.get(INDEX)
  if (!index) throw new Error('the console has no index.html')
  prepared.delete(INDEX)
  return { index, files: prepared }
}

let loaded: Promise<ConsoleAssets> | undefined

/**
 * The console, loaded at its first request and kept for the life of the process: the binary's own
 * files, or from source a bundle made now (about 0.2 s; tests and processes that never show the
 * console never pay it). A failed build is tried again at the next request.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  loaded ??= (Bun.isStandaloneExecutable ? embeddedConsole() : bundleConsole()).then(prepareAssets).catch((error: unknown) => {
    loaded = undefined
    throw error
  })
  return loaded
}
