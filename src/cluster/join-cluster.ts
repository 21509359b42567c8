import { Holdings, type Claiming, type WorkTable } from '../db/claims.ts'
import { contendedWrite, type Write } from '../db/locking.ts'
import type { Listening } from '../db/notifications.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import { createClaimKeeper, processOwner } from './claim-keeper.ts'
import { singleton, type Part } from './singleton.ts'
import { listenToOthers } from './wakeups.ts'

/*
 * A process's place among those sharing the database, wired for the composition root: who it is
 * (its claimant), which of its parts run in one process at a time (singletons), the heartbeat of
 * its claims, and what wakes its loops when other processes queue work or leases run out.
 */

/**
 * This process, as its claims of work rows and its singleton leases name it. Claims and leases are
 * written on their own, never behind a batch of other work that waits on locks.
 */
export function processClaimant(db: Db, write: Write, leaseSeconds: number): Claiming {
  return { owner: processOwner(), leaseMs: leaseSeconds * 1000, write: contendedWrite(db, write), held: new Holdings() }
}

export interface ClusterDeps {
  databaseUrl: string | null
  db: Db
  clock: Clock
  logger: Logger
  claimant: Claiming
}

/**
 * What wakes a loop of this process when rows of its work table are waiting: given the projects
 * whose rows wait when the write that made them said so (the writer's `wake`), nothing when it is
 * not known (another process's announcement, a lease that ran out).
 */
export type Wakers = Partial<Record<WorkTable, (projects?: ReadonlySet<number> | null) => void>>

/**
 * Joins the cluster: `singletons` wraps the parts that run in one process at a time; `start` (once
 * the loops run) starts the claims' heartbeat and listens to other processes' announcements.
 */
export function joinCluster<P extends Record<string, Part>>(deps: ClusterDeps, singletonParts: P, wakers: Wakers) {
  const { claimant, clock, logger } = deps
  const leaseDeps = { write: claimant.write, clock, logger, owner: claimant.owner, ttlMs: claimant.leaseMs }
  const singletons = Object.fromEntries(Object.entries(singletonParts).map(([name, part]) => [name, singleton(name, part, leaseDeps)])) as {
    [K in keyof P]: ReturnType<typeof singleton>
  }
  const keeper = createClaimKeeper({ write: claimant.write, clock, logger, claimant, cameBack: (tables) => tables.forEach((table) => wakers[table]?.()) })
  let wakeups: Listening | undefined
  return {
    singletons,
    /** The heartbeat of this process's claims: `keep()` renews them and gives back expired ones now. */
    keeper,
    start() {
      keeper.start()
      wakeups = listenToOthers(deps.databaseUrl, deps.db, wakers, logger)
    },
    /** Stops listening; the heartbeat stops with `keeper.stop()` once the loops have. */
    stopListening: () => wakeups?.close(),
  }
}
