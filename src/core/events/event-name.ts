import { invalid } from '../../lib/errors.ts'

/** Prefixes of the events the system records itself; tracked events may not borrow them. */
export const RESERVED_EVENT_PREFIXES = ['email.', 'contact.', 'segment.'] as const

/** A tracked event name: 1 to 100 printable characters, not in a reserved namespace. */
export function checkEventName(name: string): string {
  if (name.length === 0 || name.length > 100) throw invalid('event', 'must be 1 to 100 characters')
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid('event', 'must not contain control characters')
  const reserved = RESERVED_EVENT_PREFIXES.find((prefix) => name.toLowerCase().startsWith(prefix))
  if (reserved) throw invalid('event', `names starting with "${reserved}" are reserved for events Mailstead records itself`)
  return name
}
