import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { bookEmojiOf } from './contact-books.service.ts'
import { compileContext, membersOf } from './membership.ts'
import { consentOf, OPT_IN_LINK_MS, type Consent } from './opt-in.service.ts'
import { deleteOptInsOfContact, optInsOfContact } from './opt-ins.repository.ts'
import * as repo from './segments.repository.ts'

/*
 * Where one contact is: the segments whose members it is (listed in a STATIC one, matched by a
 * DYNAMIC one's condition now) and the contact books it is listed in, each with its consent; and
 * what erasing it removes of this module's tables.
 */

/** A segment the contact is a member of; `since` is when it was listed or entered a tracked segment (null: matched now, not tracked). */
export interface SegmentMembership {
  id: string
  name: string
  type: 'DYNAMIC' | 'STATIC'
  since: string | null
}

/** A book the contact is listed in, or waits to confirm its place in, with the consent it gave by double opt-in. */
export interface BookMembership {
  id: string
  name: string
  emoji: string
  /** listed: a member; pending: asked to confirm by email, not yet a member. */
  state: 'listed' | 'pending'
  since: string
  consent: Consent | null
}

/** The segments (books left out) and books the contact is in now. */
export async function contactMemberships(db: Db, projectId: number, contactId: string, now: number) {
  const [segments, listings, tracked, optIns] = await Promise.all([
    repo.listSegments(db, projectId),
    repo.listingsOf(db, contactId),
    repo.trackedMembershipsOf(db, contactId),
    optInsOfContact(db, projectId, contactId),
  ])
  const listedAt = new Map(listings.map((row) => [row.segment_id, row.created_at]))
  const enteredAt = new Map(tracked.map((row) => [row.segment_id, row.entered_at]))
  const context = await compileContext(db, projectId, now)
  const inSegments: SegmentMembership[] = []
  const inBooks: BookMembership[] = []
  for (const segment of segments) {
    const emoji = bookEmojiOf(segment)
    if (emoji !== undefined) {
      const listed = listedAt.get(segment.id)
      const waiting = optIns.find((o) => o.segment_id === segment.id && o.confirmed_at === null && o.requested_at > now - OPT_IN_LINK_MS)
      if (listed === undefined && !waiting) continue
      const since = listed ?? waiting!.requested_at
      inBooks.push({ id: segment.id, name: segment.name, emoji, state: listed === undefined ? 'pending' : 'listed', since: isoTime(since), consent: await consentOf(db, segment.id, contactId) })
      continue
    }
    const member = segment.type === 'STATIC' ? listedAt.has(segment.id) : await matches(db, segment, contactId, context)
    if (!member) continue
    const since = listedAt.get(segment.id) ?? enteredAt.get(segment.id)
    inSegments.push({ id: segment.id, name: segment.name, type: segment.type, since: since === undefined ? null : isoTime(since) })
  }
  return { segments: inSegments, books: inBooks }
}

async function matches(db: Db, segment: repo.SegmentRow, contactId: string, context: Awaited<ReturnType<typeof compileContext>>): Promise<boolean> {
  const row = await membersOf(db, segment, context).where('c.id', '=', contactId).select('c.id').executeTakeFirst()
  return row !== undefined
}

/** Every request to join a book and every consent the contact gave, newest first: what a privacy export holds. */
export async function contactOptIns(db: Db, projectId: number, contactId: string) {
  return (await optInsOfContact(db, projectId, contactId)).map((row) => ({
    bookId: row.segment_id,
    requestedAt: isoTime(row.requested_at),
    confirmedAt: row.confirmed_at === null ? null : isoTime(row.confirmed_at),
    method: row.method,
    clientIp: row.client_ip,
    userAgent: row.user_agent,
    agreedTo: row.agreed_to === null ? null : (JSON.parse(row.agreed_to) as unknown),
  }))
}

/** Erases the contact from this module's tables: its listings, tracked memberships, opt-in requests and consents. */
export async function eraseContactMemberships(db: Db, projectId: number, contactId: string): Promise<void> {
  await deleteOptInsOfContact(db, projectId, contactId)
  await repo.deleteMembershipsOf(db, contactId)
}
