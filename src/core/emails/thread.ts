import type { Db } from '../../db/schema.ts'
import { notFound } from '../../lib/errors.ts'
import { headerValue, readHead } from './raw-message.ts'
import { threadFactsOf } from './emails.repository.ts'

/** How many message ids a References field keeps: the thread's first and its latest (RFC 5322 3.6.4 lets us trim the middle). */
const MAX_REFERENCES = 20

export interface Thread {
  /** The Message-ID of the email replied to. */
  inReplyTo: string
  /** Its References followed by its Message-ID: the thread from its start. */
  references: string
}

/**
 * The thread a reply to one of the project's emails joins (useSend's `inReplyToId`): In-Reply-To
 * names that email, References carries its References and then its Message-ID. Another project's
 * email, or none, is a 404: the caller learns nothing of what other projects sent.
 */
export async function threadOf(db: Db, projectId: number, emailId: string): Promise<Thread> {
  const parent = await threadFactsOf(db, projectId, emailId)
  if (!parent) throw notFound(`Email ${emailId} (inReplyToId)`)
  // Retention may have deleted the parent's message: the thread then starts at the parent.
  const earlier = parent.mime ? (headerValue(readHead(parent.mime).fields, 'references') ?? '') : ''
  const ids = [...(earlier.match(/<[^<>\s]+>/g) ?? []), parent.message_id]
  const kept = ids.length > MAX_REFERENCES ? [ids[0]!, ...ids.slice(ids.length - MAX_REFERENCES + 1)] : ids
  return { inReplyTo: parent.message_id, references: kept.join(' ') }
}
