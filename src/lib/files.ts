import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { randomToken } from './ids.ts'

/** What the data directory and what it holds are created with: the server's user alone may read them. */
export const PRIVATE_DIR = 0o700
export const PRIVATE_FILE = 0o600

/** Makes a directory (and its parents) that only this user may enter; one that exists is left as it is. */
export const makePrivateDir = (path: string) => mkdirSync(path, { recursive: true, mode: PRIVATE_DIR })

/**
 * A name beside `path` for writing it in full before it appears: same directory (so the rename
 * is atomic), hidden, and unique.
 */
export const tempBeside = (path: string, what = 'partial') => join(dirname(path), `.${basename(path)}.${what}-${randomToken(6)}`)

/** Flushes a file (or directory) to disk. A directory that cannot be opened for it is skipped. */
export function fsyncPath(path: string, directory = false): void {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (error) {
    if (directory) return
    throw error
  }
  try {
    fsyncSync(fd)
  } catch (error) {
    // Some file systems refuse fsync on a directory; the data itself was synced.
    if (!directory) throw error
  } finally {
    closeSync(fd)
  }
}

export class FileExistsError extends Error {
  override name = 'FileExistsError'
  constructor(readonly path: string) {
    super(`${path} already exists`)
  }
}

/**
 * Gives a complete, synced temporary file its final name, never replacing a file that is there:
 * a hard link fails if the name is taken (checked and made in one step). On a file system
 * without hard links, a check and a rename.
 */
export function placeNew(temp: string, target: string): void {
  try {
    linkSync(temp, target)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') throw new FileExistsError(target)
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw error
    if (existsSync(target)) throw new FileExistsError(target)
    renameSync(temp, target)
  }
  rmSync(temp, { force: true })
  fsyncPath(dirname(target), true)
}

/** Writes `data` to `path` so that a reader sees the old file or the new one, never a part. */
export function writeFileAtomically(path: string, data: string | Uint8Array, mode = 0o600): void {
  const temp = tempBeside(path)
  try {
    writeFileSync(temp, data, { mode, flag: 'wx' })
    fsyncPath(temp)
    renameSync(temp, path)
    fsyncPath(dirname(path), true)
  } finally {
    rmSync(temp, { force: true })
  }
}

/** Writes a new file, complete or not at all; refuses (FileExistsError) when `path` is taken. */
export function writeNewFile(path: string, data: string | Uint8Array, mode = 0o600): void {
  const temp = tempBeside(path)
  try {
    writeFileSync(temp, data, { mode, flag: 'wx' })
    fsyncPath(temp)
    placeNew(temp, path)
  } finally {
    rmSync(temp, { force: true })
  }
}
