import { dialectOf } from '../../db/client.ts'
import { holdsForMost } from '../../db/hints.ts'
import type { Db } from '../../db/schema.ts'
import { everyContact, projectContacts } from '../contacts/contact-queries.ts'
import { compileCondition, type CompileContext } from './compile.ts'
import { checkCondition, forEachFilter, segmentIdOf, type Condition } from './condition.ts'
import { invalid } from '../../lib/errors.ts'
import type { SegmentRow } from './segments.repository.ts'

/** A segment's condition as stored, or null for a STATIC segment. */
export const conditionOf = (row: Pick<SegmentRow, 'condition'>): Condition | null => (row.condition ? (JSON.parse(row.condition) as Condition) : null)

/** What compiling needs: every segment of the project, for conditions that name one. */
export async function compileContext(db: Db, projectId: number, now: number): Promise<CompileContext> {
  const rows = await db.selectFrom('segments').select(['id', 'type', 'condition']).where('project_id', '=', projectId).execute()
  return { dialect: dialectOf(db), projectId, now, segments: new Map(rows.map((r) => [r.id, { type: r.type, condition: conditionOf(r) }])) }
}

/** The contacts (`c`) who are members of a segment: by its listed members, or by its condition. */
export function membersOf(db: Db, segment: Pick<SegmentRow, 'id' | 'project_id' | 'type' | 'condition'>, context: CompileContext) {
  const contacts = projectContacts(db, segment.project_id)
  if (segment.type === 'STATIC') return contacts.where('c.id', 'in', listed(db, segment.id))
  return contacts.where(compileCondition(conditionOf(segment)!, context))
}

const listed = (db: Db, segmentId: string) => db.selectFrom('segment_members as sm').select('sm.contact_id').where('sm.segment_id', '=', segmentId)

/** The contacts a condition matches, without a stored segment: campaigns with FILTERED audiences. */
export function matching(db: Db, projectId: number, condition: Condition, context: CompileContext) {
  return projectContacts(db, projectId).where(compileCondition(checkCondition(condition), context))
}

/**
 * How many members a segment has now. A condition is tested on each of the project's contacts,
 * which the table read through gives faster than the project index does (a lookup per row) when
 * the project holds most of them, as on most servers; a listing is counted from its rows.
 */
export async function memberCount(db: Db, segment: SegmentRow, context: CompileContext): Promise<number> {
  if (segment.type !== 'STATIC') return conditionCount(db, segment.project_id, conditionOf(segment)!, context)
  const members = everyContact(db).where('c.project_id', '=', segment.project_id).where('c.id', 'in', listed(db, segment.id))
  return countOf(members)
}

/** How many of the project's contacts a checked condition matches now, counted as a segment's are. */
export function conditionCount(db: Db, projectId: number, condition: Condition, context: CompileContext): Promise<number> {
  return countOf(everyContact(db).where((eb) => holdsForMost(db, eb('c.project_id', '=', projectId))).where(compileCondition(condition, context)))
}

async function countOf(contacts: ReturnType<typeof everyContact>): Promise<number> {
  const row = await contacts.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * A condition given to narrow a list of contacts (`field` names it in errors), checked as a
 * segment's is (the segments it names exist) and compiled over the contacts' alias `c`: what
 * the contacts table's filters and bulk actions hand to contacts, which sit below segments.
 */
export async function contactCondition(db: Db, projectId: number, input: unknown, now: number, field = 'condition') {
  const condition = checkCondition(input, field)
  const context = await compileContext(db, projectId, now)
  forEachFilter(
    condition,
    (filter, path) => {
      const id = segmentIdOf(filter)
      if (id !== undefined && !context.segments.has(id)) throw invalid(`${path}.field`, `there is no segment ${id} in this project`)
    },
    field,
  )
  return compileCondition(condition, context)
}
