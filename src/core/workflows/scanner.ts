import { sql } from 'kysely'
import { commitOrderOf, committedAfter, cursorAt, isAfter, readingOrder, START, upTo, type EventCursor } from '../../db/event-cursors.ts'
import { recordTable, textsIn } from '../../db/lists.ts'
import { lockedRow } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'
import { rowsWait } from '../../db/writer.ts'
import { everyContact } from '../contacts/contact-queries.ts'
import { emailEventsWithEmail, lastSettledEmailEvent } from '../emails/email-queries.ts'
import { eventLog, lastSettledEvent } from '../events/event-queries.ts'
import type { Condition } from '../segments/condition.ts'
import { compileCondition } from '../segments/compile.ts'
import { compileContext } from '../segments/membership.ts'
import { enterContacts, type TriggerFacts } from './entry.ts'
import { moveExecution, recordStep, type ExecutionRow } from './executions.repository.ts'
import type { EventTrigger, Step } from './workflow.ts'

/** One thing that happened to a contact, from either source. */
export interface ContactEvent {
  id: number
  projectId: number
  contactId: string
  name: string
  data: Record<string, unknown> | null
  at: number
}

export type EventSource = 'events' | 'email_events'

/** Where each source's settled events end, as its owner reads it. */
const lastSettledOf = (db: Db, source: EventSource) => (source === 'events' ? lastSettledEvent(db) : lastSettledEmailEvent(db))

/** Email events that workflows may react to, by the name they go by. */
const EMAIL_STATUSES = ['DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED'] as const

/**
 * How far the source has been read, its row locked until the caller's transaction ends: a scanner
 * in another process waits here, then reads on from where this one left off. A source without a
 * row (a database that began without it) starts from the beginning.
 */
async function cursorOf(db: Db, source: EventSource): Promise<EventCursor> {
  const read = () => lockedRow(db, db.selectFrom('workflow_cursors').select(['last_id', 'last_order']).where('source', '=', source)).executeTakeFirst()
  let row = await read()
  if (!row) {
    await db.insertInto('workflow_cursors').values({ source, last_id: 0 }).onConflict((oc) => oc.column('source').doNothing()).execute()
    row = (await read())!
  }
  return { id: row.last_id, order: row.last_order }
}

/**
 * Whether the source holds events past its cursor, read without the writer: a round with nothing
 * new to read takes no write transaction (an idle server polls several times a second).
 */
export async function hasUnread(db: Db, source: EventSource): Promise<boolean> {
  const row = await db.selectFrom('workflow_cursors').select(['last_id', 'last_order']).where('source', '=', source).executeTakeFirst()
  return isAfter(await lastSettledOf(db, source), row ? { id: row.last_id, order: row.last_order } : START)
}

const moveCursor = (db: Db, source: EventSource, to: EventCursor) =>
  db.updateTable('workflow_cursors').set({ last_id: to.id, last_order: to.order }).where('source', '=', source).execute()

/** The next `limit` events of a source after `after`, and where the cursor goes (events not about a contact are passed over). */
async function readEvents(db: Db, source: EventSource, after: EventCursor, limit: number): Promise<{ events: ContactEvent[]; last: EventCursor | undefined; read: number }> {
  if (source === 'events') {
    const rows = await eventLog(db)
      .selectAll('ev')
      .select(commitOrderOf(db, 'ev'))
      .where(committedAfter(db, 'ev', after))
      .orderBy(readingOrder(db, 'ev'))
      .limit(limit)
      .execute()
    const events = rows.map((r) => ({ id: r.id, projectId: r.project_id, contactId: r.contact_id, name: r.name, data: r.data === null ? null : JSON.parse(r.data), at: r.created_at }))
    return { events, last: rows.length > 0 ? cursorAt(rows.at(-1)!) : undefined, read: rows.length }
  }
  // Most email events (QUEUED, SENT, ...) start nothing: only those that may are read, and the
  // cursor then moves past the rest, up to the last event settled when the read began.
  const top = await lastSettledEmailEvent(db)
  const rows = await emailEventsWithEmail(db)
    .select(['ev.id', 'ev.status', 'ev.data', 'ev.created_at', 'em.project_id', 'em.contact_id', 'em.id as email_id', commitOrderOf(db, 'ev')])
    .where(committedAfter(db, 'ev', after))
    .where(upTo(db, 'ev', top))
    .where('ev.status', 'in', EMAIL_STATUSES)
    .orderBy(readingOrder(db, 'ev'))
    .limit(limit)
    .execute()
  const events = rows
    .filter((r) => r.contact_id !== null)
    .map((r) => ({ id: r.id, projectId: r.project_id, contactId: r.contact_id!, name: `email.${r.status.toLowerCase()}`, data: { emailId: r.email_id, ...(r.data && JSON.parse(r.data)) }, at: r.created_at }))
  const last = rows.length === limit ? cursorAt(rows.at(-1)!) : isAfter(top, after) ? top : undefined
  return { events, last, read: rows.length }
}

/** Whether an enabled EVENT workflow exists, or a run waits for an event. */
async function anyoneListens(db: Db): Promise<boolean> {
  const workflow = await db.selectFrom('workflows').select('id').where('enabled', '=', 1).where('trigger_type', '=', 'EVENT').limit(1).executeTakeFirst()
  if (workflow) return true
  // Spelled as the partial index workflow_executions_waiting is, so that it is used.
  const waiting = await db.selectFrom('workflow_executions').select('id').where(sql<boolean>`state = 'WAITING' AND wait_event IS NOT NULL`).limit(1).executeTakeFirst()
  return waiting !== undefined
}


/** The contacts among `ids` that a condition matches now. */
async function matching(db: Db, projectId: number, ids: string[], condition: Condition, now: number): Promise<Set<string>> {
  const context = await compileContext(db, projectId, now)
  const rows = await everyContact(db)
    .select('c.id')
    .where('c.id', 'in', textsIn(db, ids))
    .where(compileCondition(condition, context))
    .execute()
  return new Set(rows.map((r) => r.id))
}

/** Starts the EVENT workflows these events trigger: each contact once per workflow, with its first such event. */
async function enterTriggered(db: Db, events: ContactEvent[], now: number) {
  const projects = [...new Set(events.map((e) => e.projectId))]
  const workflows = await db.selectFrom('workflows').selectAll().where('enabled', '=', 1).where('trigger_type', '=', 'EVENT').where('project_id', 'in', projects).execute()
  for (const workflow of workflows) {
    const config = JSON.parse(workflow.trigger_config) as EventTrigger
    const triggers = new Map<string, TriggerFacts>()
    for (const event of events) {
      if (event.projectId === workflow.project_id && event.name === config.eventName && !triggers.has(event.contactId)) {
        triggers.set(event.contactId, { name: event.name, data: event.data, at: event.at })
      }
    }
    if (triggers.size === 0) continue
    let ids = [...triggers.keys()]
    if (config.condition) {
      const matched = await matching(db, workflow.project_id, ids, config.condition, now)
      ids = ids.filter((id) => matched.has(id))
    }
    await enterContacts(db, workflow, ids, { name: config.eventName, data: null, at: now }, now, triggers)
  }
}

/** Runs waiting for one of these events, since before it happened, go on by their onEvent exit. */
async function wakeWaiting(db: Db, events: ContactEvent[], now: number) {
  const keys = events.map((e) => ({ contact: e.contactId, name: e.name, at: e.at }))
  const j = recordTable(db, 'j', { contact: 'text', name: 'text', at: 'bigint' }, keys)
  const waiting = await sql<ExecutionRow>`
    SELECT x.* FROM workflow_executions x
    JOIN ${j.table} ON x.contact_id = ${j.field('contact')} AND x.wait_event = ${j.field('name')}
    WHERE x.state = 'WAITING' AND x.wait_event IS NOT NULL AND x.step_since <= ${j.field('at')}`.execute(db)
  const woken = new Set<string>()
  for (const execution of waiting.rows) {
    if (woken.has(execution.id)) continue
    woken.add(execution.id)
    const workflow = await db.selectFrom('workflows').select('steps').where('id', '=', execution.workflow_id).executeTakeFirstOrThrow()
    const step = (JSON.parse(workflow.steps) as Step[]).find((s) => s.id === execution.current_step)
    const target = step?.type === 'WAIT_FOR_EVENT' ? step.onEvent : null
    const move = target
      ? { state: 'RUNNING' as const, current_step: target, next_run_at: now, step_since: now, wait_event: null }
      : { state: 'COMPLETED' as const, current_step: null, next_run_at: null, step_since: now, wait_event: null, finished_at: now }
    if (await moveExecution(db, execution, move, now)) {
      await recordStep(db, execution.id, execution.current_step ?? '', 'WAIT_FOR_EVENT', 'event', { eventName: execution.wait_event }, now)
      // Due now: the runner takes it once this transaction committed.
      if (move.state === 'RUNNING') rowsWait(db, 'workflow_executions', execution.project_id)
    }
  }
}

/**
 * Reads the next events of a source, in the caller's transaction, and acts on them: EVENT
 * workflows start, waiting runs go on. The cursor moves in the same transaction, so every event is
 * acted on once, whatever stops the server. Answers how many events it read (`limit`: there
 * may be more).
 */
export async function scanEvents(db: Db, source: EventSource, limit: number, now: number): Promise<number> {
  const after = await cursorOf(db, source)
  // Nothing can act on an event: the cursor moves past them unread (a workflow enabled later
  // reacts to what happens after it is, as it would anyway).
  if (!(await anyoneListens(db))) {
    const top = await lastSettledOf(db, source)
    if (isAfter(top, after)) await moveCursor(db, source, top)
    return 0
  }
  const { events, last, read } = await readEvents(db, source, after, limit)
  if (last === undefined) return 0
  if (events.length > 0) {
    await enterTriggered(db, events, now)
    await wakeWaiting(db, events, now)
  }
  await moveCursor(db, source, last)
  return read
}

