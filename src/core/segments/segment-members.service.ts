import type { Db } from '../../db/schema.ts'
import { conflict, invalid } from '../../lib/errors.ts'
import { requireAddress } from '../../lib/address.ts'
import { contactIdsByKey, existingContactIds } from '../contacts/index.ts'
import { contactFields, toContact } from '../contacts/contact.ts'
import { writeContacts } from '../contacts/contacts.service.ts'
import { contactsWritten, type ContactWrites } from '../reactions.ts'
import { compileContext, memberCount, membersOf } from './membership.ts'
import * as repo from './segments.repository.ts'
import { requireSegment, withCount } from './segments.service.ts'

export interface MemberInput {
  contactIds?: string[]
  emails?: string[]
}

async function requireStatic(db: Db, projectId: number, id: string) {
  const row = await requireSegment(db, projectId, id)
  if (row.type !== 'STATIC') throw conflict('The members of a DYNAMIC segment follow its condition; only a STATIC segment lists them')
  return row
}

/** The contacts the input names: this project's contacts by id, and addresses (new ones become contacts). */
async function contactIdsOf(db: Db, projectId: number, input: MemberInput, now: number): Promise<{ ids: string[]; writes: ContactWrites }> {
  const given = input.contactIds ?? []
  const addresses = (input.emails ?? []).map((email, i) => ({ address: requireAddress(email, `emails[${i}]`) }))
  const existing = await existingContactIds(db, projectId, given)
  const missing = given.findIndex((id) => !existing.has(id))
  if (missing >= 0) throw invalid(`contactIds[${missing}]`, 'is not a contact of this project')
  const written = await writeContacts(db, projectId, addresses, now)
  return { ids: [...given, ...written.ids], writes: written.writes }
}

/**
 * Lists contacts as members of a STATIC segment; addresses that are not contacts yet become
 * contacts. What follows is reported once they are listed, so tracked segments see both.
 */
export async function addMembers(db: Db, projectId: number, id: string, input: MemberInput, now: number) {
  const row = await requireStatic(db, projectId, id)
  const { ids, writes } = await contactIdsOf(db, projectId, input, now)
  await repo.addMembers(db, row.id, ids, now)
  await contactsWritten(db, projectId, { ...writes, touched: ids }, now)
  return withCount(db, row, now)
}

/** Takes contacts off a STATIC segment's list; names that are not on it are passed over. */
export async function removeMembers(db: Db, projectId: number, id: string, input: MemberInput, now: number) {
  const row = await requireStatic(db, projectId, id)
  const keys = (input.emails ?? []).map((email, i) => requireAddress(email, `emails[${i}]`).key)
  const byEmail = await contactIdsByKey(db, projectId, keys)
  const removed = await repo.removeMembers(db, row.id, [...(input.contactIds ?? []), ...byEmail.values()])
  await contactsWritten(db, projectId, { touched: removed }, now)
  return withCount(db, row, now)
}

/** One page of a segment's members, newest contacts first, with the total. */
export async function segmentContacts(db: Db, projectId: number, id: string, page: number, pageSize: number, now: number) {
  const row = await requireSegment(db, projectId, id)
  const context = await compileContext(db, projectId, now)
  const rows = await membersOf(db, row, context)
    .select(contactFields)
    .orderBy('c.id', 'desc')
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute()
  return { contacts: rows.map(toContact), page, pageSize, total: await memberCount(db, row, context) }
}
