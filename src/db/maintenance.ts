import { sql } from 'kysely'
import type { Logger } from '../lib/logger.ts'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

const CHECKPOINT_EVERY_MS = 5 * 60_000
const OPTIMIZE_EVERY_MS = 6 * 60 * 60_000

/**
 * Keeps SQLite tidy while the server runs: a passive WAL checkpoint now and then so the WAL does
 * not grow without bound under steady writes, and PRAGMA optimize every few hours. PostgreSQL
 * does its own (checkpoints, autovacuum and analyze): there this does nothing.
 */
export function startDbMaintenance(db: Db, logger: Logger): () => void {
  if (dialectOf(db) === 'postgres') return () => {}
  const run = (what: string, statement: ReturnType<typeof sql>) => () =>
    statement.execute(db).catch((error) => logger.warn('DB', `${what} failed`, { error: String(error) }))
  const timers = [
    setInterval(run('checkpoint', sql`PRAGMA wal_checkpoint(PASSIVE)`), CHECKPOINT_EVERY_MS),
    setInterval(run('optimize', sql`PRAGMA optimize`), OPTIMIZE_EVERY_MS),
  ]
  for (const timer of timers) timer.unref()
  return () => timers.forEach(clearInterval)
}

/**
 * Copies what the WAL holds into the database file as far as readers allow: PASSIVE never waits
 * for them (a backup reading a snapshot, say). Answers the WAL's frames and those copied; on
 * PostgreSQL, whose server checkpoints by itself, nothing.
 */
export async function checkpoint(db: Db): Promise<{ log: number; checkpointed: number } | undefined> {
  if (dialectOf(db) === 'postgres') return undefined
  const result = await sql<{ busy: number; log: number; checkpointed: number }>`PRAGMA wal_checkpoint(PASSIVE)`.execute(db)
  const { log, checkpointed } = result.rows[0]!
  return { log, checkpointed }
}
