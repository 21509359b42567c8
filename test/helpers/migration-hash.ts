import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Migration } from '../../src/db/migrator.ts'

/**
 * A short hash of every migration file's text and of the list's names: a migrated template named
 * by it is made again whenever a migration changes, is added or is left out of the list.
 */
export function migrationsHash(list: readonly Migration[]): string {
  const root = join(import.meta.dir, '../../migrations')
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).sort()
  const sources = files.map((file) => `${file}\n${readFileSync(join(root, file), 'utf8')}`).join('\n')
  return createHash('sha256')
    .update(sources + list.map((m) => m.name).join(','))
    .digest('hex')
    .slice(0, 12)
}
