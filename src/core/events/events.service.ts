import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { saveContact } from '../contacts/contacts.service.ts'
import { refreshMemberships } from '../segments/tracking.ts'
import { checkEventName } from './event-name.ts'
import { insertEvent } from './events.repository.ts'

export interface TrackInput {
  email: string
  event: string
  subscribed?: boolean
  data?: Record<string, unknown>
}

/**
 * Records a named event for the contact with this address, creating or updating the contact:
 * `subscribed` becomes true unless given, and `data` is merged into the contact and kept with the
 * event. Tracked segments see the contact and the event in the same transaction.
 */
export async function track(db: Db, projectId: number, input: TrackInput, now: number) {
  const event = checkEventName(input.event)
  const { contact } = await saveContact(
    db,
    projectId,
    { email: input.email, subscribed: input.subscribed ?? true, data: input.data },
    now,
  )
  await insertEvent(db, { project_id: projectId, contact_id: contact.id, name: event, data: input.data }, now)
  await refreshMemberships(db, projectId, [contact.id], now)
  return { contact: contact.id, event, timestamp: isoTime(now) }
}
