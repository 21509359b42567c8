import type { Server } from 'bun'
import type { joinCluster } from '../cluster/join-cluster.ts'
import type { RateLimits } from '../cluster/rate-limits.ts'
import type { Config } from '../config/config-schema.ts'
import type { Database } from '../db/client.ts'
import { checkpoint } from '../db/maintenance.ts'
import type { Writer } from '../db/writer.ts'
import { stopHttp } from '../http/serving.ts'
import { settlesWithin } from '../lib/deadline.ts'
import type { Logger } from '../lib/logger.ts'
import type { SmtpListeners } from '../smtp/listeners.ts'

/** What a stop stops, in the order it does. */
export interface Running {
  config: Config
  logger: Logger
  stopMaintenance: () => void
  cluster: ReturnType<typeof joinCluster>
  /** Stopped at once, with nothing to wait for: the process gauges and the MTA-STS cache. */
  timers: Array<{ stop(): void }>
  /** The loops this process's roles run. */
  loops: Array<{ stop(): Promise<unknown> }>
  /** Read when the stop comes to them: a start still under way may have opened them since the stop began. */
  smtp: () => SmtpListeners | undefined
  server: () => Server<undefined> | undefined
  rateLimits: RateLimits
  writer: Writer
  database: Database
  /** Closed last: the SMTP pool and the mail worker threads. */
  pools: Array<{ close(): void }>
}

/**
 * New work stops at once: no connections, SMTP transactions, claims or rounds are taken. What
 * is under way (SMTP transactions, HTTP requests, delivery attempts, workflow steps) gets
 * `stopGraceSeconds` in all to finish; then connections are closed, deliveries still in flight
 * go back to the queue, and the database is checkpointed and closed. Pools and workers close
 * last, so that work cut off cannot record a failure that was only the stop.
 */
export async function shutDown(running: Running) {
  const { config, logger, cluster, writer, database } = running
  const began = Date.now()
  const graceMs = config.stopGraceSeconds * 1000
  const failed = (error: unknown) => logger.error('STOP', 'a part failed to stop', { error: String((error as Error)?.stack ?? error) })
  running.stopMaintenance()
  await cluster.stopListening()
  for (const timer of running.timers) timer.stop()
  // Each part's failure is its own: the others are still waited for.
  const loops = Promise.allSettled(running.loops.map((part) => part.stop())).then((results) => {
    for (const result of results) if (result.status === 'rejected') failed(result.reason)
  })
  const [smtpCut, httpCut] = await Promise.all([running.smtp()?.stop(graceMs) ?? 0, stopHttp(running.server(), graceMs)])
  const loopsDone = await settlesWithin(loops, graceMs - (Date.now() - began), failed)
  await running.rateLimits.stop()
  await writer.drain()
  // What this process still holds (its loops were cut off) waits for the others at once, not
  // after its leases run out.
  await cluster.keeper.stop()
  const claimsLeft = await cluster.keeper.release().catch((error) => (failed(error), undefined))
  const wal = await checkpoint(database.db).catch((error) => (failed(error), undefined))
  await database.close()
  for (const pool of running.pools) pool.close()
  const fields = { smtpConnectionsCut: smtpCut, httpCut, claimsLeft, loopsDone, wal, writes: writer.stats() }
  logger.info('STOP', `stopped in ${Date.now() - began} ms`, fields)
}
