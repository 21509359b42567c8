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
  /** Apply `subscribed` only when this creates the contact (Plunk's double opt-in in one call). */
  preserveExistingSubscription?: boolean
  data?: Record<string, unknown>
}

/** Plunk's one-shot value: `{value, persistent: false}` reaches the event, never the contact. */
const isOneShot = (value: unknown): value is { value: unknown; persistent: false } =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { persistent?: unknown }).persistent === false && 'value' in value && Object.keys(value).length === 2

/** A tracked event's data split: what the contact keeps, and what the event carries (one-shot values unwrapped). */
export function splitTrackData(data: Record<string, unknown> | undefined): { contact: Record<string, unknown> | undefined; event: Record<string, unknown> | undefined } {
  if (!data) return { contact: undefined, event: undefined }
  const contact: Record<string, unknown> = {}
  const event: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data)) {
    if (isOneShot(value)) {
      event[key] = value.value
    } else {
      contact[key] = value
      event[key] = value
    }
  }
  return { contact, event }
}

/**
 * Records a named event for the contact with this address, creating or updating the contact:
 * `subscribed` becomes true unless given (or, with `preserveExistingSubscription`, is applied to a
 * new contact only), and `data` is merged into the contact, but for its one-shot values, and kept
 * with the event. What follows the contact's change runs once the event is written too, so that tracked
 * segments see both.
 */
export async function track(db: Db, projectId: number, input: TrackInput, now: number) {
  const event = checkEventName(input.event)
  const data = splitTrackData(input.data)
  const subscribed = input.subscribed ?? true
  const change = await writeContact(db, projectId, { email: input.email, subscribed: input.preserveExistingSubscription ? undefined : subscribed, data: data.contact }, now, subscribed)
  await insertEvent(db, { project_id: projectId, contact_id: change.after.id, name: event, data: data.event }, now)
  await contactSaved(db, change, now)
  return { contact: change.after.id, event, timestamp: isoTime(now) }
}
