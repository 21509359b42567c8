import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { writeContact } from '../contacts/contacts.service.ts'
import { contactSaved } from '../reactions.ts'
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
 * event. What follows the contact's change runs once the event is written too, so that tracked
 * segments see both.
 */
export async function track(db: Db, projectId: number, input: TrackInput, now: number) {
  const event = checkEventName(input.event)
  const change = await writeContact(db, projectId, { email: input.email, subscribed: input.subscribed ?? true, data: input.data }, now)
  await insertEvent(db, { project_id: projectId, contact_id: change.after.id, name: event, data: input.data }, now)
  await contactSaved(db, change, now)
  return { contact: change.after.id, event, timestamp: isoTime(now) }
}
