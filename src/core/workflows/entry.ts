import { sql } from 'kysely'
import { insertMany, rowValue } from '../../db/bulk.ts'
import type { Db } from '../../db/schema.ts'
import { rowsWait } from '../../db/writer.ts'
import { newId } from '../../lib/ids.ts'
import type { WorkflowRow } from './executions.repository.ts'
import type { Step } from './workflow.ts'

/** What started a run: an event's name and data, a manual trigger, a schedule's tick. */
export interface TriggerFacts {
  name: string
  data: Record<string, unknown> | null
  at: number
}

/**
 * A contact enters one workflow at most this often in an hour, whatever allowReentry says: the
 * guard that stops a workflow which triggers itself (its UPDATE_CONTACT moving the contact into a
 * segment whose entry starts it again) from running without end.
 */
export const ENTRIES_PER_HOUR = 10

const COLUMNS = ['id', 'workflow_id', 'project_id', 'contact_id', 'state', 'current_step', 'next_run_at', 'step_since', 'trigger', 'created_at', 'updated_at'] as const

/**
 * Starts a run of `workflow` for each contact, in the caller's transaction, where the rules let
 * it: never two runs of one workflow for one contact at once (a unique index); with allowReentry
 * off, never a second run at all; and never more than ENTRIES_PER_HOUR in an hour. `triggers`
 * gives each contact its own trigger (an event of its own), else `trigger` is everyone's.
 *
 * Safe with several processes on PostgreSQL: two entries of one contact at once (an event read
 * by the scanner, a manual trigger through another process) meet at the unique index on live
 * runs, and the second inserts nothing (ON CONFLICT DO NOTHING); the scanner itself holds its
 * cursor's row lock while it reads and enters.
 */
export async function enterContacts(
  db: Db,
  workflow: WorkflowRow,
  contactIds: string[],
  trigger: TriggerFacts,
  now: number,
  triggers?: Map<string, TriggerFacts>,
): Promise<{ entered: number; skipped: number }> {
  const [entry] = JSON.parse(workflow.steps) as Step[]
  if (!entry || contactIds.length === 0) return { entered: 0, skipped: contactIds.length }
  const rows = contactIds.map((contactId) => ({
    id: newId(),
    workflow_id: workflow.id,
    project_id: workflow.project_id,
    contact_id: contactId,
    state: 'RUNNING',
    current_step: entry.id,
    next_run_at: now,
    step_since: now,
    trigger: JSON.stringify(triggers?.get(contactId) ?? trigger),
    created_at: now,
    updated_at: now,
  }))
  const earlier = (window: ReturnType<typeof sql>) =>
    sql`(SELECT count(*) FROM workflow_executions x WHERE x.workflow_id = ${workflow.id} AND x.contact_id = ${rowValue('contact_id')} ${window})`
  const allowed =
    workflow.allow_reentry === 1 ? sql`${earlier(sql`AND x.created_at > ${now - 3_600_000}`)} < ${ENTRIES_PER_HOUR}` : sql`${earlier(sql``)} = 0`
  const entered = await insertMany(db, 'workflow_executions', COLUMNS, rows, { where: allowed, then: sql`ON CONFLICT DO NOTHING RETURNING id` })
  // The runs are due now: the runner looks once this transaction committed, whoever entered them.
  if (entered.length > 0) rowsWait(db, 'workflow_executions', workflow.project_id)
  return { entered: entered.length, skipped: contactIds.length - entered.length }
}
