import { CompiledQuery } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/**
 * Runs `work` in one write transaction. On SQLite, BEGIN IMMEDIATE takes the write lock at the
 * start, so a transaction never has to upgrade a read snapshot that another process has moved
 * past. PostgreSQL has no such lock (READ COMMITTED, many writers): there a read-then-write must
 * lock its rows itself or rest on a unique constraint. `work` must use only the handle it is given.
 */
export async function writeTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  const begin = dialectOf(db) === 'postgres' ? BEGIN : BEGIN_IMMEDIATE
  return db.connection().execute(async (connection) => {
    await connection.executeQuery(begin)
    try {
      const result = await work(connection)
      await connection.executeQuery(COMMIT)
      return result
    } catch (error) {
      await connection.executeQuery(ROLLBACK)
      throw error
    }
  })
}

const BEGIN_IMMEDIATE = CompiledQuery.raw('BEGIN IMMEDIATE')
const BEGIN = CompiledQuery.raw('BEGIN')
const COMMIT = CompiledQuery.raw('COMMIT')
const ROLLBACK = CompiledQuery.raw('ROLLBACK')
