import { describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { schemaTables, tableAccess } from '../../scripts/table-access.ts'
import { ownedBy, TABLE_OWNERS, WHOLE_DATABASE_CODE } from '../../src/db/owners.ts'

/*
 * One owner per table, for reads as for writes: every query of src/ that names a table is in the
 * module src/db/owners.ts declares for it, or in the whole-database code listed there. Code that
 * needs another module's table calls a function or a query fragment its owner exports.
 */

const ROOT = join(import.meta.dir, '..', '..')
const TABLES = schemaTables(ROOT)
const ACCESS = tableAccess(ROOT)
const owners: Record<string, string> = TABLE_OWNERS

describe('the table-to-owner map of src/db/owners.ts', () => {
  test('names every table of the schema, and no other', () => {
    expect(Object.keys(owners).sort()).toEqual([...TABLES].sort())
  })

  test('names owners that exist', () => {
    expect(Object.values(owners).filter((owner) => !existsSync(join(ROOT, owner)))).toEqual([])
  })
})

describe('each table is read and written by its owner alone', () => {
  test.each(TABLES)('%s', (table) => {
    const strangers = ACCESS.filter(({ file }) => !ownedBy(file, owners[table]!) && !WHOLE_DATABASE_CODE.includes(file)).flatMap(({ file, reads, writes }) => [
      ...(reads.has(table) ? [`${file} reads it`] : []),
      ...(writes.has(table) ? [`${file} writes it`] : []),
    ])
    expect(strangers).toEqual([])
  })
})

describe('the scanner', () => {
  test('finds the reads and writes of a known file', () => {
    const handoff = ACCESS.find(({ file }) => file === 'src/core/campaigns/campaigns.repository.ts')!
    expect(handoff.reads.has('campaigns')).toBe(true)
    expect(handoff.writes.has('campaigns')).toBe(true)
  })

  test('finds reads in raw SQL and in joins', () => {
    const reads = (file: string) => ACCESS.find((access) => access.file === file)?.reads ?? new Set()
    expect(reads('src/core/workflows/scanner.ts').has('workflow_executions')).toBe(true)
    expect(reads('src/core/accounts/sessions.repository.ts').has('accounts')).toBe(true)
  })
})
