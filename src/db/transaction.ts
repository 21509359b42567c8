import { CompiledQuery } from 'kysely'
import type { Db } from './schema.ts'

/**
 * Runs `work` in one write transaction. BEGIN IMMEDIATE takes the write lock at the start, so a
 * transaction never has to upgrade a read snapshot that another process has moved past.
 * `work` must use only the handle it is given.
 */
export async function writeTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await connection.executeQuery(BEGIN)
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

const BEGIN = CompiledQuery.raw('BEGIN IMMEDIATE')
const COMMIT = CompiledQuery.raw('COMMIT')
const ROLLBACK = CompiledQuery.raw('ROLLBACK')
