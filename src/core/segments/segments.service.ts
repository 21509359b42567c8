import type { Db, SegmentType } from '../../db/schema.ts'
import { AppError, conflict, invalid, notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { compileCondition, dependentsOf, reaches, type CompileContext } from './compile.ts'
import { checkCondition, forEachFilter, segmentIdOf, segmentRefs, type Condition } from './condition.ts'
import { compileContext, conditionCount, memberCount, membersOf } from './membership.ts'
import { toSegment } from './segment.ts'
import { contactFields, toContact } from '../contacts/contact.ts'
import * as repo from './segments.repository.ts'
import { clearMemberships, refreshSegment } from './segment-tracking.ts'

export interface SegmentInput {
  name: string
  description?: string | null
  type?: SegmentType
  condition?: unknown
  trackMembership?: boolean
}

const checkName = (name: string) => {
  if (name.trim() === '' || name.length > 200) throw invalid('name', 'must be 1 to 200 characters')
  return name.trim()
}

const checkDescription = (description: string | null | undefined) => {
  if (description && description.length > 2000) throw invalid('description', 'must be at most 2000 characters')
  return description ?? null
}

/**
 * A DYNAMIC segment's condition, checked: the segments it names exist and do not lead back to
 * `self`, and it compiles within the limits, as do the segments that name `self` once it changes.
 */
async function checkedCondition(db: Db, projectId: number, input: unknown, self: string | undefined, now: number): Promise<Condition> {
  if (input === undefined || input === null) throw invalid('condition', 'a DYNAMIC segment needs a condition')
  const condition = checkCondition(input)
  const context = await compileContext(db, projectId, now)
  forEachFilter(condition, (filter, path) => {
    const id = segmentIdOf(filter)
    if (id === undefined) return
    if (!context.segments.has(id)) throw invalid(`${path}.field`, `there is no segment ${id} in this project`)
    if (self !== undefined && (id === self || reaches(context.segments, id, self))) {
      throw invalid(`${path}.field`, 'a segment cannot refer to itself, directly or through other segments')
    }
  })
  if (self === undefined) {
    compileCondition(condition, context)
    return condition
  }
  context.segments.set(self, { type: 'DYNAMIC', condition })
  for (const id of [self, ...dependentsOf(context.segments, self)]) compileWithin(context, id, self)
  return condition
}

function compileWithin(context: CompileContext, id: string, self: string): void {
  try {
    compileCondition(context.segments.get(id)!.condition!, context)
  } catch (error) {
    if (id === self || !(error instanceof AppError)) throw error
    throw invalid('condition', `segment ${id} names this one and would then fail: ${error.message}`)
  }
}

export async function createSegment(db: Db, projectId: number, input: SegmentInput, now: number, meta?: object) {
  const type = input.type ?? 'DYNAMIC'
  if (type === 'STATIC' && input.condition !== undefined && input.condition !== null) {
    throw invalid('condition', 'a STATIC segment has listed members, not a condition')
  }
  const condition = type === 'DYNAMIC' ? await checkedCondition(db, projectId, input.condition, undefined, now) : null
  const row = await repo.insertSegment(db, {
    id: newId(),
    project_id: projectId,
    name: checkName(input.name),
    description: checkDescription(input.description),
    type,
    condition: condition && JSON.stringify(condition),
    track_membership: input.trackMembership ? 1 : 0,
    meta: meta ? JSON.stringify(meta) : null,
    created_at: now,
    updated_at: now,
  })
  if (row.track_membership === 1) await refreshSegment(db, row, now, { baseline: true })
  return withCount(db, row, now)
}

/** How many members a segment of `condition` would have now, and the newest few: read-only, checked as creating the segment is. */
export async function previewSegment(db: Db, projectId: number, input: unknown, now: number, size = 10) {
  const condition = await checkedCondition(db, projectId, input, undefined, now)
  const context = await compileContext(db, projectId, now)
  const draft = { id: '', project_id: projectId, type: 'DYNAMIC' as const, condition: JSON.stringify(condition) }
  const rows = await membersOf(db, draft, context).select(contactFields).orderBy('c.id', 'desc').limit(size).execute()
  const count = await conditionCount(db, projectId, condition, context)
  return { count, contacts: rows.map((row) => ({ id: row.id, email: row.email, subscribed: toContact(row).subscribed })) }
}

export async function requireSegment(db: Db, projectId: number, id: string) {
  const row = await repo.findSegment(db, projectId, id)
  if (!row) throw notFound('Segment')
  return row
}

export async function withCount(db: Db, row: repo.SegmentRow, now: number) {
  return toSegment(row, await memberCount(db, row, await compileContext(db, row.project_id, now)))
}

export const getSegment = async (db: Db, projectId: number, id: string, now: number) => withCount(db, await requireSegment(db, projectId, id), now)

export async function listSegments(db: Db, projectId: number, now: number) {
  const context = await compileContext(db, projectId, now)
  const rows = await repo.listSegments(db, projectId)
  return Promise.all(rows.map(async (row) => toSegment(row, await memberCount(db, row, context))))
}

export async function updateSegment(db: Db, projectId: number, id: string, patch: Omit<Partial<SegmentInput>, 'type'>, now: number) {
  const row = await requireSegment(db, projectId, id)
  if (patch.condition !== undefined && row.type === 'STATIC') throw invalid('condition', 'a STATIC segment has listed members, not a condition')
  const condition = patch.condition === undefined ? undefined : await checkedCondition(db, projectId, patch.condition, id, now)
  const updated = await repo.updateSegment(db, id, {
    ...(patch.name !== undefined && { name: checkName(patch.name) }),
    ...(patch.description !== undefined && { description: checkDescription(patch.description) }),
    ...(condition && { condition: JSON.stringify(condition) }),
    ...(patch.trackMembership !== undefined && { track_membership: patch.trackMembership ? 1 : 0 }),
    updated_at: now,
  })
  await followChange(db, row, updated, condition !== undefined, now)
  return withCount(db, updated, now)
}

/**
 * Keeps recorded memberships in step with an update. Tracking turned on records the members now
 * as the baseline, without entry events; turned off forgets them. A new condition is a change of
 * membership like any other, recorded as entries and exits, in this segment and in the tracked
 * segments that name it.
 */
async function followChange(db: Db, before: repo.SegmentRow, after: repo.SegmentRow, conditionChanged: boolean, now: number): Promise<void> {
  const tracked = after.track_membership === 1
  if (!tracked && before.track_membership === 1) await clearMemberships(db, after.id)
  else if (tracked && before.track_membership === 0) await refreshSegment(db, after, now, { baseline: true })
  else if (tracked && conditionChanged) await refreshSegment(db, after, now)
  if (!conditionChanged) return
  const { segments } = await compileContext(db, after.project_id, now)
  const dependents = new Set(dependentsOf(segments, after.id))
  for (const dependent of await repo.listSegments(db, after.project_id)) {
    if (dependent.track_membership === 1 && dependents.has(dependent.id)) await refreshSegment(db, dependent, now)
  }
}

/** Deletes a segment that no other segment names; its listed and recorded members go with it. */
export async function deleteSegment(db: Db, projectId: number, id: string, now: number) {
  const row = await requireSegment(db, projectId, id)
  const { segments } = await compileContext(db, projectId, now)
  const namedBy = [...segments].filter(([, other]) => other.condition && segmentRefs(other.condition).includes(id)).map(([other]) => other)
  if (namedBy.length > 0) {
    throw conflict(`Segment ${row.name} is named in the condition of segment ${namedBy.join(', ')}`, 'Change or delete the segments that name it first.')
  }
  await repo.deleteSegment(db, projectId, id)
  return { id, success: true, message: 'Segment deleted' }
}
