import { listen, WORK_CHANNEL, type Listening, type WORK_TABLES } from '../db/notifications.ts'
import type { Logger } from '../lib/logger.ts'

export type WorkTable = (typeof WORK_TABLES)[number]

/**
 * New work reaching an idle process: on PostgreSQL, another process's insert of work is announced
 * (migration 0022) and wakes the loop that takes it here; after the listening connection was
 * lost, every loop is woken once. Polling stays the fallback. Only the loops this process runs
 * are given. On SQLite there is nothing to listen to: `undefined`.
 */
export function listenForWork(databaseUrl: string | null, wakers: Partial<Record<WorkTable, () => void>>, logger: Logger): Listening | undefined {
  if (!databaseUrl || Object.keys(wakers).length === 0) return undefined
  const wakeAll = () => {
    for (const wake of Object.values(wakers)) wake()
  }
  return listen(databaseUrl, WORK_CHANNEL, {
    onMessage: (table) => wakers[table as WorkTable]?.(),
    onReconnect: () => {
      logger.info('WAKEUP', 'listening for new work again')
      wakeAll()
    },
    onError: (error) => logger.warn('WAKEUP', `listening for new work: ${error.message}`),
  })
}
