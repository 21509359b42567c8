import { forgetChangeVersion } from '../db/client.ts'
import { CHANGES_CHANNEL, listen, WORK_CHANNEL, type Listening } from '../db/notifications.ts'
import type { WorkTable } from '../db/claims.ts'
import type { Db } from '../db/schema.ts'
import type { Logger } from '../lib/logger.ts'

/**
 * What other processes announce on PostgreSQL, heard on one connection of this process's own:
 * - new work (migration 0022) wakes the loop here that takes it; polling stays the fallback.
 *   Only the loops this process runs are given.
 * - a change to keys, projects or domains (migration 0019) makes the next check of the change
 *   signal read it again, so a key revoked through another process is refused here at once
 *   rather than within the second the signal is otherwise trusted.
 * After the connection was lost, every loop is woken and the signal read again: what was
 * announced meanwhile was missed. On SQLite there is nothing to listen to: `undefined`.
 */
export function listenToOthers(databaseUrl: string | null, db: Db, wakers: Partial<Record<WorkTable, () => void>>, logger: Logger): Listening | undefined {
  if (!databaseUrl) return undefined
  const catchUp = () => {
    forgetChangeVersion(db)
    for (const wake of Object.values(wakers)) wake()
  }
  return listen(databaseUrl, [WORK_CHANNEL, CHANGES_CHANNEL], {
    onMessage: (channel, table) => (channel === CHANGES_CHANNEL ? forgetChangeVersion(db) : wakers[table as WorkTable]?.()),
    onReconnect: () => {
      logger.info('WAKEUP', 'listening to other processes again')
      catchUp()
    },
    onError: (error) => logger.warn('WAKEUP', `listening to other processes: ${error.message}`),
  })
}
