import type { Db } from '../db/schema.ts'
import type { Finding } from '../lib/findings.ts'

/** What one run of the server's checks found, as stored. */
export interface ServerReport {
  hostname: string
  ips: string[]
  findings: Finding[]
  /** The settings it was made under: a report made under others is not fresh, however new. */
  basis: string
}

export interface StoredReport extends ServerReport {
  checkedAt: number
}

/**
 * Takes the run of check `name` when its report is older than `freshMs` (or missing) and no other
 * run began within `leaseMs`: true when this caller is to run it. Several processes on one
 * database ask; one gets it.
 */
export async function claimRun(db: Db, name: string, now: number, freshMs: number, leaseMs: number): Promise<boolean> {
  await db.insertInto('server_checks').values({ name }).onConflict((c) => c.column('name').doNothing()).execute()
  const claimed = await db
    .updateTable('server_checks')
    .set({ running_since: now })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('checked_at', 'is', null), eb('checked_at', '<=', now - freshMs)]))
    .where((eb) => eb.or([eb('running_since', 'is', null), eb('running_since', '<=', now - leaseMs)]))
    .executeTakeFirst()
  return Number(claimed.numUpdatedRows) > 0
}

/** Stores a run's report and ends the run. */
export async function saveReport(db: Db, name: string, report: ServerReport, now: number): Promise<void> {
  const values = { report: JSON.stringify(report), checked_at: now, running_since: null }
  await db
    .insertInto('server_checks')
    .values({ name, ...values })
    .onConflict((c) => c.column('name').doUpdateSet(values))
    .execute()
}

/** Ends a run that failed, keeping the last report: the next tick may try again. */
export async function abandonRun(db: Db, name: string): Promise<void> {
  await db.updateTable('server_checks').set({ running_since: null }).where('name', '=', name).execute()
}

export async function readReport(db: Db, name: string): Promise<StoredReport | undefined> {
  const row = await db.selectFrom('server_checks').select(['report', 'checked_at']).where('name', '=', name).executeTakeFirst()
  if (!row?.report || row.checked_at === null) return undefined
  return { ...(JSON.parse(row.report) as ServerReport), checkedAt: row.checked_at }
}
