import { migrationsFor } from '../../migrations/index.ts'
import { processClaimant, type Wakers } from '../cluster/join-cluster.ts'
import { createRateLimits } from '../cluster/rate-limits.ts'
import type { Config } from '../config/config-schema.ts'
import { openDatabase } from '../db/client.ts'
import { migrate } from '../db/migrator.ts'
import { createWriter } from '../db/writer.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import { databaseTarget } from '../settings-of.ts'

/**
 * The database and what writes to it: opened and migrated, its one writer, this process's
 * claimant, and the rate limits kept in it. `wakers` is filled once the loops exist (wireCluster):
 * a write that committed rows that wait wakes their table's loop (src/db/writer.ts, rowsWait).
 */
export async function wireDatabase(config: Config, clock: Clock, logger: Logger) {
  const database = await openDatabase(databaseTarget(config))
  const applied = await migrate(database.db, migrationsFor(database.dialect), () => clock.now())
  if (applied.length > 0) logger.info('MIGRATE', `applied ${applied.join(', ')}`)
  const wakers: Wakers = {}
  const writer = createWriter(database.db, { wake: (table, projects) => wakers[table]?.(projects) })
  // Claims and leases are written on their own, never behind a batch of other work that waits on locks.
  const claimant = processClaimant(database.db, writer.run, config.leaseSeconds)
  const rateLimits = createRateLimits({ db: database.db, write: writer.run, clock, logger })
  return { database, writer, wakers, claimant, rateLimits }
}
