import { createHash } from 'node:crypto'
import { extname } from 'node:path'
import { staticFile, type StaticFile } from '../static-file.ts'
import { bundleConsole, embeddedConsole, INDEX, type ConsoleFile } from './bundle.ts'

/** A console file ready to send. */
export type ConsoleAsset = StaticFile

export interface ConsoleAssets {
  index: ConsoleAsset
  /** By name under /console/assets/. */
  files: Map<string, ConsoleAsset>
  /** The index's inline styles (its first-paint shell) as CSP sources, `'sha256-…'`. */
  styleHashes: string[]
  /** The index's inline scripts (the theme, applied before the first paint) as CSP sources. */
  scriptHashes: string[]
}

/** A CSP hash source for each inline `<tag>` of `html`: the policy allows those and no other. */
export function inlineHashes(html: string, tag: 'style' | 'script'): string[] {
  return [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`)
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
  const html = files.find((file) => file.name === INDEX)
  if (!index || !html) throw new Error('the console has no index.html')
  prepared.delete(INDEX)
  const text = new TextDecoder().decode(html.body)
  return { index, files: prepared, styleHashes: inlineHashes(text, 'style'), scriptHashes: inlineHashes(text, 'script') }
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
