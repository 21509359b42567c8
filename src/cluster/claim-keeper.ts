import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { releaseAllOf, renewLeases, takeOverExpired, type Claiming, type WorkTable } from '../db/claims.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'

/** A process among those sharing the database, as claims and leases name it: host, pid and a random part (two apps in one process differ). */
export const processOwner = () => `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`

export interface KeeperDeps {
  write: <T>(operation: (trx: Db) => Promise<T>) => Promise<T>
  clock: Clock
  logger: Logger
  claimant: Claiming
  /** Rows of these tables came back to wait: their loops may look now rather than at their next round. */
  cameBack: (tables: WorkTable[]) => void
}

/**
 * The heartbeat of a process's claims (src/db/claims.ts). Every quarter of a lease it renews the
 * leases of the rows its loops hold and gives back rows whose holders stopped renewing theirs, in
 * one write. At its stop it gives back what the process still holds, so that other
 * processes need not wait for those leases to run out.
 */
export function createClaimKeeper(deps: KeeperDeps) {
  const { clock, logger, claimant } = deps
  let timer: ReturnType<typeof setInterval> | undefined
  let beat: Promise<void> | undefined

  async function keep(): Promise<void> {
    const now = clock.now()
    const back = await deps.write(async (trx) => {
      await renewLeases(trx, claimant.owner, claimant.held, now + claimant.leaseMs)
      return takeOverExpired(trx, now)
    })
    if (back.length > 0) {
      logger.warn('CLAIMS', 'work whose process stopped renewing its lease is waiting again', { tables: back.join(',') })
      deps.cameBack(back)
    }
  }

  const tick = () => {
    beat ??= keep()
      .catch((error) => logger.error('CLAIMS', 'leases could not be renewed', { error: String(error) }))
      .finally(() => (beat = undefined))
  }

  return {
    start() {
      tick()
      timer = setInterval(tick, Math.max(100, Math.floor(claimant.leaseMs / 4)))
      timer.unref()
    },
    /** Stops renewing; call `release` once the loops that claim have stopped. */
    async stop() {
      clearInterval(timer)
      await beat
    },
    /** Gives back what this process still holds: how many rows. */
    release: () => deps.write((trx) => releaseAllOf(trx, claimant.owner, clock.now())),
    /** One heartbeat now: for tests. */
    keep,
  }
}

export type ClaimKeeper = ReturnType<typeof createClaimKeeper>
