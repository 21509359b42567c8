import { readFileSync, writeFileSync } from 'node:fs'
import { makePrivateDir } from '../lib/files.ts'
import { join } from 'node:path'
import { randomToken } from '../lib/ids.ts'

/** The secret's file in the data directory, when it is generated there. */
export const secretPath = (dataDir: string) => join(dataDir, 'secret')

/**
 * The secret that signs tokens, kept in the data directory when MAILSTEAD_SECRET is not set, so
 * that links in mail already sent stay valid across restarts.
 */
export function readOrCreateSecret(dataDir: string): string {
  const path = secretPath(dataDir)
  makePrivateDir(dataDir)
  try {
    writeFileSync(path, randomToken(32) + '\n', { mode: 0o600, flag: 'wx' })
  } catch (error) {
    // Already there (perhaps written a moment ago by another process): keep the one on disk.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  return readFileSync(path, 'utf8').trim()
}
