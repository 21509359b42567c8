import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** The package name that marks a folder as a Mailstead checkout. */
const PACKAGE_NAME = 'mailstead'

/** Whether `dir` holds Mailstead's own package.json. */
function isCheckout(dir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === PACKAGE_NAME
  } catch {
    return false
  }
}

/**
 * The data directory when none is set. Inside a Mailstead checkout it is `data` at the checkout's
 * root, wherever in it a command runs: `npm start` runs at the root, and a CLI command run from
 * `src/` once made a second, empty database there and said "No projects yet". Elsewhere (the
 * binary on a server) it stays `./data`, beside where it runs.
 */
export function defaultDataDir(cwd = process.cwd()): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (isCheckout(dir)) return join(dir, 'data')
    if (dirname(dir) === dir) return './data'
  }
}
