import { sql } from 'kysely'
import type { Database } from './client.ts'
import { DatabaseError } from './database-error.ts'
import { writeTransaction } from './transaction.ts'

/** PostgreSQL takes at most 65,535 parameters a statement: rows are inserted in chunks under it. */
const MAX_PARAMETERS = 60_000
const MAX_ROWS = 1000

/** Columns whose SQLite value is its binary JSON (JSONB): read as JSON text for PostgreSQL's jsonb. */
const SQLITE_JSONB_COLUMNS: Record<string, readonly string[]> = { contacts: ['data'] }

/** Tables that are each dialect's own bookkeeping, not data. */
const NOT_COPIED = new Set(['migrations', 'change_signal'])

/** Tables a new database's migrations put rows in (see the PostgreSQL baseline): replaced by SQLite's rows, not counted as data. */
const SEEDED = new Set(['workflow_cursors', 'server_settings'])

export interface CopyReport {
  /** Rows copied, by table, in the order copied. */
  tables: Record<string, number>
}

/**
 * Copies every row of a SQLite database into an empty PostgreSQL one, both migrated to the same
 * migration, in one PostgreSQL transaction: the copy is whole or absent. Tables go parents first
 * (by their foreign keys); identity sequences are moved past the ids copied; each table's count is
 * checked after. `progress` hears each table as it is done.
 */
export async function copySqliteToPostgres(source: Database, target: Database, progress: (table: string, rows: number) => void = () => {}): Promise<CopyReport> {
  const [from, to] = [await lastMigration(source.db), await lastMigration(target.db)]
  if (from !== to) throw new DatabaseError(`Not copied: SQLite is at migration ${from} and PostgreSQL at ${to}; both must be migrated by this Mailstead`)
  const tables = await tablesInCopyOrder(source)
  const report: CopyReport = { tables: {} }
  await writeTransaction(target.db, async (trx) => {
    for (const table of tables) {
      if (SEEDED.has(table)) {
        await sql`DELETE FROM ${sql.table(table)}`.execute(trx)
        continue
      }
      const existing = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(trx)
      if (existing.rows[0]!.n > 0) throw new DatabaseError(`Not copied: PostgreSQL's ${table} already holds rows; copying needs an empty database`)
    }
    for (const table of tables) {
      const copied = await copyTable(source, trx, table)
      const counted = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(trx)
      if (counted.rows[0]!.n !== copied) throw new DatabaseError(`Not copied: ${table} has ${counted.rows[0]!.n} rows in PostgreSQL after copying ${copied}`)
      await moveIdentityPast(trx, table)
      report.tables[table] = copied
      progress(table, copied)
    }
    // The events copied all carry this transaction's commit order: the workflow cursors, read as
    // SQLite left them (an id), stand at that order too, so what they had read stays read.
    await sql`UPDATE workflow_cursors SET last_order = CAST(pg_current_xact_id() AS text)`.execute(trx)
  })
  return report
}

async function copyTable(source: Database, target: Database['db'], table: string): Promise<number> {
  const columns = (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table}) ORDER BY cid`.execute(source.db)).rows.map((c) => c.name)
  const jsonb = SQLITE_JSONB_COLUMNS[table] ?? []
  const selected = columns.map((c) => (jsonb.includes(c) ? sql`json(${sql.ref(c)})`.as(c) : sql.ref(c).as(c)))
  const chunk = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / columns.length)))
  let copied = 0
  let batch: Array<Record<string, unknown>> = []
  const flush = async () => {
    if (batch.length === 0) return
    await target.insertInto(table as never).values(batch as never).execute()
    copied += batch.length
    batch = []
  }
  // Streamed from one read of SQLite: a million contacts never sit in memory at once.
  for await (const row of source.db.selectFrom(table as never).select(selected as never).stream(chunk)) {
    const record = row as Record<string, unknown>
    batch.push(Object.fromEntries(columns.map((c) => [c, record[c] instanceof Uint8Array ? Buffer.from(record[c] as Uint8Array) : record[c]])))
    if (batch.length >= chunk) await flush()
  }
  await flush()
  return copied
}

/** An identity column goes on from the largest id copied (inserting explicit ids does not move it). */
async function moveIdentityPast(target: Database['db'], table: string) {
  const identity = await sql<{ column_name: string }>`
    SELECT column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} AND is_identity = 'YES'`.execute(target)
  for (const { column_name } of identity.rows) {
    await sql`SELECT setval(pg_get_serial_sequence(${table}, ${column_name}), GREATEST((SELECT max(${sql.ref(column_name)}) FROM ${sql.table(table)}), 1), (SELECT count(*) > 0 FROM ${sql.table(table)}))`.execute(target)
  }
}

const lastMigration = async (db: Database['db']) =>
  (await sql<{ name: string }>`SELECT max(name) AS name FROM migrations`.execute(db)).rows[0]?.name

/** Whether any table that a copy would fill holds a row already. */
export async function holdsData(target: Database['db']): Promise<boolean> {
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(target)
  for (const { table_name } of tables.rows) {
    if (NOT_COPIED.has(table_name) || SEEDED.has(table_name)) continue
    const found = await sql`SELECT 1 FROM ${sql.table(table_name)} LIMIT 1`.execute(target)
    if (found.rows.length > 0) return true
  }
  return false
}

/** SQLite's tables, each after the tables its foreign keys name. */
async function tablesInCopyOrder(source: Database): Promise<string[]> {
  const names = (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`.execute(source.db)).rows
    .map((r) => r.name)
    .filter((name) => !NOT_COPIED.has(name))
  const parents = new Map<string, string[]>()
  for (const name of names) {
    const keys = await sql<{ table: string }>`SELECT "table" FROM pragma_foreign_key_list(${name})`.execute(source.db)
    parents.set(name, [...new Set(keys.rows.map((k) => k.table))].filter((parent) => parent !== name))
  }
  const ordered: string[] = []
  const visit = (name: string, path: string[]) => {
    if (ordered.includes(name)) return
    if (path.includes(name)) throw new DatabaseError(`Not copied: the foreign keys of ${path.join(' -> ')} -> ${name} form a cycle`)
    for (const parent of parents.get(name) ?? []) visit(parent, [...path, name])
    ordered.push(name)
  }
  for (const name of names) visit(name, [])
  return ordered
}
