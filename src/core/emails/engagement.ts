import type { Db } from '../../db/schema.ts'
import { addEmailEvent } from './email-events.ts'
import { emailExists } from './email-queries.ts'

/** Who followed a tracking link, as far as the request tells. */
export interface Visitor {
  userAgent?: string
  ip?: string
}

/**
 * Records that an email was opened or one of its links clicked, in the caller's transaction:
 * every time, as its own event (campaigns count each recipient once). False when there is no
 * such email (any more), and nothing is written.
 */
export async function recordEngagement(
  db: Db,
  emailId: string,
  engagement: { status: 'OPENED'; visitor: Visitor } | { status: 'CLICKED'; visitor: Visitor; url: string },
  now: number,
): Promise<boolean> {
  if (!(await emailExists(db, emailId))) return false
  const data = { ...('url' in engagement && { url: engagement.url }), ...engagement.visitor }
  await addEmailEvent(db, emailId, engagement.status, data, now)
  return true
}
