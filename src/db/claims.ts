import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, type SqlBool, type UpdateObject, type UpdateQueryBuilder, type UpdateResult } from 'kysely'
import { dialectOf } from './client.ts'
import { integersIn, textsIn } from './lists.ts'
import type { DB, Db } from './schema.ts'

/*
 * The one way work rows are taken, whatever the work: deliveries, webhook deliveries, workflow
 * runs, campaigns being sent, contact imports and domain checks. A claim writes on the row who
 * holds it (`claimed_by`, a process) and until when (`lease_until`). The holder renews its leases
 * while it works and clears the claim when it settles the row. A lease that runs out (its process
 * died or hung) is given back by whichever process looks next, and the row is claimed again like
 * any waiting row: nothing is released wholesale at start-up, so processes sharing a database
 * never take each other's work.
 *
 * A claim is one `UPDATE ... WHERE id IN (picked) ... RETURNING`. On SQLite it runs in the one
 * writer's transaction, which holds the whole database, so nobody can take a row between the
 * choice and the update. On PostgreSQL several processes claim at once: the picked rows are read
 * again and locked with `FOR UPDATE SKIP LOCKED` (a row another transaction holds is skipped, not
 * waited for), and kept only if they are still unclaimed and `still` holds of them, which
 * PostgreSQL checks on the row's newest version once it has the lock. A claim may so take fewer
 * rows than were picked, never a row twice.
 */

export type WorkTable = 'deliveries' | 'webhook_deliveries' | 'workflow_executions' | 'campaigns' | 'contact_imports' | 'domains'
export const WORK_TABLES: readonly WorkTable[] = ['deliveries', 'webhook_deliveries', 'workflow_executions', 'campaigns', 'contact_imports', 'domains']

/** Who claims: a process (src/cluster/claim-keeper.ts), and how long its leases run unless renewed. */
export interface Claimant {
  readonly owner: string
  readonly leaseMs: number
}

/**
 * A process's loops claim through this: who they are, and how a claim is written. A lease counts
 * from its claim's `now`, so a claim must commit at once, never wait in a batch behind other work
 * (on PostgreSQL a batch may wait seconds on rows other processes hold, and its claims' leases
 * would be spent before anyone could see them renewed). On PostgreSQL a claim is one statement
 * committed on its own; on SQLite it goes through the one writer, which holds up nobody's locks.
 */
export interface Claiming extends Claimant {
  readonly write: <T>(operation: (trx: Db) => Promise<T>) => Promise<T>
  /** The rows the process's loops hold: each loop says so once its claim answered, and lets go once it settled them. */
  readonly held: Holdings
}

type Id = string | number

/**
 * The rows a process's loops hold in memory, by table: from the answer of the claim that took
 * them until the statement that settles them, or gives them back, has committed. A process's
 * heartbeat renews these leases and no others. A claim that committed but whose answer never came
 * (the connection was cut as it committed) took rows that no loop holds: their lease runs out and
 * they are given back as a stopped process's would be, instead of being renewed for as long as
 * the process lives.
 */
export class Holdings {
  private readonly byTable = new Map<WorkTable, Set<Id>>()

  hold(table: WorkTable, ids: Iterable<Id>): void {
    let held = this.byTable.get(table)
    if (!held) this.byTable.set(table, (held = new Set()))
    for (const id of ids) held.add(id)
  }

  letGo(table: WorkTable, ids: Iterable<Id>): void {
    const held = this.byTable.get(table)
    if (!held) return
    for (const id of ids) held.delete(id)
  }

  /** Lets go of every row of `table`: its loop gave back all it held. */
  clear(table: WorkTable): void {
    this.byTable.delete(table)
  }

  ids(table: WorkTable): Id[] {
    return [...(this.byTable.get(table) ?? [])]
  }
}
/** The ids of rows chosen to be claimed: a query, or a list. */
export type Picked = SelectQueryBuilder<DB, any, { id: any }> | RawBuilder<unknown> | readonly Id[]

export interface Claim<T extends WorkTable> {
  /** The rows chosen, for example the oldest due. */
  picked: Picked
  /** What must still hold of a row once locked: its own "waiting" condition (due, pending). */
  still: (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool>
  /** What else the claim writes (a state, an attempt counted). */
  set?: UpdateObject<DB, T>
}

/**
 * What a row looks like again once the lease of its holder ran out without it being settled:
 * waiting to be claimed, as it was before. A delivery was `sending`, an import `RUNNING`, a
 * domain `is_verifying`; the other tables mark a claim only by the claim.
 */
const GIVEN_BACK: { [T in WorkTable]: (now: number) => UpdateObject<DB, T> } = {
  deliveries: (now) => ({ state: 'queued', next_attempt_at: now, updated_at: now }),
  webhook_deliveries: () => ({}),
  workflow_executions: () => ({}),
  campaigns: () => ({}),
  contact_imports: () => ({ status: 'PENDING' }),
  domains: () => ({ is_verifying: 0 }),
}

/**
 * The claiming statement: of the `picked` rows of `table`, those still unclaimed and `still`,
 * taken by `claimant` until `now` plus its lease. Returns the update, for the caller's `returning`.
 */
export function claim<T extends WorkTable>(db: Db, table: T, claimant: Claimant, now: number, claim: Claim<T>): UpdateQueryBuilder<DB, T, T, UpdateResult> {
  const waiting = (eb: ExpressionBuilder<DB, T>) => eb.and([eb('claimed_by' as any, 'is', null), claim.still(eb)])
  const picked = idsIn(db, claim.picked)
  const update = db.updateTable(table as WorkTable) as unknown as UpdateQueryBuilder<DB, T, T, UpdateResult>
  const claimed = update.set({ ...claim.set, claimed_by: claimant.owner, lease_until: now + claimant.leaseMs } as unknown as UpdateObject<DB, T>)
  if (dialectOf(db) === 'sqlite') return claimed.where('id' as any, 'in', picked).where(waiting)
  // `id = ANY(ARRAY(...))`: each list is worked out once (an InitPlan) and the rows found by their
  // keys. Written as `id IN (...)`, the planner may instead run the choice again for every row it
  // looks at, which on a fresh table's guessed statistics took minutes for a few thousand rows.
  const lockable = db
    .selectFrom(table as WorkTable)
    .select('id')
    .where(sql<SqlBool>`id = ANY(ARRAY(${picked}))`)
    .where(waiting as any)
    .forUpdate()
    .skipLocked()
  return claimed.where(sql<SqlBool>`id = ANY(ARRAY(${lockable}))`).where(waiting)
}

/** The picked ids as the right side of `id IN (...)`: a list goes as one parameter (src/db/lists.ts). */
function idsIn(db: Db, picked: Picked): any {
  if (!Array.isArray(picked)) return picked
  const ids = picked as readonly Id[]
  return typeof ids[0] === 'number' ? integersIn(db, ids as number[]) : textsIn(db, ids as string[])
}

/** What a settling statement also writes: the claim cleared. */
export const UNCLAIMED = { claimed_by: null, lease_until: null } as const

/** Clears `owner`'s claim of these rows, writing `set` with it; a row another process holds now is left alone. */
export function unclaim<T extends WorkTable>(db: Db, table: T, owner: string, ids: readonly Id[], set: UpdateObject<DB, T> = {} as UpdateObject<DB, T>) {
  if (ids.length === 0) return Promise.resolve(0)
  return (db.updateTable(table as WorkTable) as any)
    .set({ ...set, ...UNCLAIMED })
    .where('id', 'in', idsIn(db, ids))
    .where('claimed_by', '=', owner)
    .executeTakeFirst()
    .then((result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows))
}

/** Moves on to `until` the leases of the rows `owner`'s loops hold: its heartbeat while it works. */
export async function renewLeases(db: Db, owner: string, held: Holdings, until: number): Promise<void> {
  for (const table of WORK_TABLES) {
    const ids = held.ids(table)
    if (ids.length === 0) continue
    await (db.updateTable(table) as any)
      .set({ lease_until: until })
      .where(unlocked(db, table, (eb) => eb.and([eb('id', 'in', idsIn(db, ids)), eb('claimed_by', '=', owner)])))
      .execute()
  }
}

/**
 * The rows of `table` that `where` holds of, for a heartbeat's statement: on PostgreSQL only those
 * no transaction holds now (`FOR UPDATE SKIP LOCKED`). A row locked is being settled (by this
 * process's batch, or another's claim); waiting for it could deadlock with that batch, which may
 * wait in turn for a row the heartbeat took. Skipped, it is seen again at the next heartbeat.
 */
function unlocked(db: Db, table: WorkTable, where: (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>) {
  if (dialectOf(db) === 'sqlite') return where
  const free = (db.selectFrom(table) as any).select('id').where(where).forUpdate().skipLocked()
  return sql<SqlBool>`id = ANY(ARRAY(${free}))`
}

/**
 * Gives back every row whose lease ran out before `now`: its holder stopped renewing it (it died,
 * or hangs). Any process may run it; the rows are then claimed again like waiting rows. Answers
 * the tables where rows came back, so that their loops can look at once.
 */
export async function takeOverExpired(db: Db, now: number): Promise<WorkTable[]> {
  const back: WorkTable[] = []
  for (const table of WORK_TABLES) {
    const result = await (db.updateTable(table) as any)
      .set({ ...GIVEN_BACK[table](now), ...UNCLAIMED })
      .where(unlocked(db, table, (eb) => eb.and([eb('claimed_by', 'is not', null), eb('lease_until', '<=', now)])))
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) > 0) back.push(table)
  }
  return back
}

/** Gives back the rows of `table` that `owner` still holds, as an expired lease would be: a loop's stop, its work ended or cut off. */
export async function giveBack(db: Db, table: WorkTable, owner: string, now: number): Promise<number> {
  const result = await (db.updateTable(table) as any).set({ ...GIVEN_BACK[table](now), ...UNCLAIMED }).where('claimed_by', '=', owner).executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Gives back every row `owner` still holds, in every table: a process's stop. Answers how many, by table, where any. */
export async function releaseAllOf(db: Db, owner: string, now: number): Promise<Partial<Record<WorkTable, number>>> {
  const released: Partial<Record<WorkTable, number>> = {}
  for (const table of WORK_TABLES) {
    const count = await giveBack(db, table, owner, now)
    if (count > 0) released[table] = count
  }
  return released
}
