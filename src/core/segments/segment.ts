import { isoTime } from '../../lib/clock.ts'
import { conditionAsAnswered } from './condition.ts'
import { conditionOf } from './membership.ts'
import type { SegmentRow } from './segments.repository.ts'

/** The Segment of the interface, with its type. */
export function toSegment(row: SegmentRow, memberCount: number) {
  const condition = conditionOf(row)
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    condition: condition ? conditionAsAnswered(condition) : null,
    trackMembership: row.track_membership === 1,
    memberCount,
    projectId: String(row.project_id),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  }
}

export type Segment = ReturnType<typeof toSegment>
