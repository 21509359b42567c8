import { statSync } from 'node:fs'
import { finding, type Finding } from './findings.ts'
import { PRIVATE_DIR, PRIVATE_FILE } from './files.ts'

export interface PrivatePath {
  path: string
  kind: 'dir' | 'file'
  /** What it holds, for the finding's sentence: "the database", "the secret". */
  what: string
}

/**
 * Whether each path that exists can be read (or entered) by other users: a warning with the chmod
 * that mends it for each that can, an ok finding when none can. Paths that do not exist are not
 * findings.
 */
export function privateFileFindings(paths: readonly PrivatePath[]): Finding[] {
  const wide: Finding[] = []
  let checked = 0
  for (const { path, kind, what } of paths) {
    let mode: number
    try {
      mode = statSync(path).mode & 0o777
    } catch {
      continue
    }
    checked++
    if ((mode & 0o077) === 0) continue
    const wanted = kind === 'dir' ? PRIVATE_DIR : PRIVATE_FILE
    const octal = (m: number) => m.toString(8).padStart(3, '0')
    wide.push(
      finding('files', path, 'warning', `${path} (${what}) is ${octal(mode)}: other users on this machine can ${kind === 'dir' ? 'list and enter it' : 'read it'}.`, `chmod ${octal(wanted)} ${path}`),
    )
  }
  if (wide.length > 0) return wide
  return [finding('files', 'data directory', 'ok', `The data directory and the ${checked} files checked in it are this user's alone.`)]
}
