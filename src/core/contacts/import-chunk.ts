import { sql } from 'kysely'
import { insertMany } from '../../db/bulk.ts'
import { jsonMergePatch } from '../../db/json.ts'
import type { Db } from '../../db/schema.ts'
import { newId } from '../../lib/ids.ts'
import { contactsWritten } from '../reactions.ts'
import { subscribedByKey } from './contacts.repository.ts'
import type { CsvContact } from './csv-columns.ts'

export interface ChunkOutcome {
  created: number
  updated: number
}

interface Merged {
  contact: CsvContact
  /** Rows of the chunk with this address. */
  rows: number
}

const COLUMNS = ['id', 'project_id', 'email', 'email_key', 'subscribed', 'data', 'created_at', 'updated_at'] as const

/** What a row's data becomes when its address is already a contact's: the contact's, with the row's merged in. */
const MERGED_DATA = jsonMergePatch('contacts.data', sql.ref('excluded.data'))

/*
 * A new contact is subscribed unless its row says otherwise; an existing one keeps its own unless
 * the row says. Which of the two a row meets is known only at the conflict, so rows that give
 * subscribed and rows that do not are two statements (a chunk is usually all one or the other).
 */
const KEEPING_SUBSCRIBED = sql`ON CONFLICT (project_id, email_key) DO UPDATE SET
  data = ${MERGED_DATA}, updated_at = excluded.updated_at
  RETURNING id, email_key`
const SETTING_SUBSCRIBED = sql`ON CONFLICT (project_id, email_key) DO UPDATE SET
  subscribed = excluded.subscribed, data = ${MERGED_DATA}, updated_at = excluded.updated_at
  RETURNING id, email_key`

/**
 * Creates or updates the chunk's contacts, keyed by address as `saveContact` keys them: data is
 * merged into what the contact has. Rows with the same address are merged first, later cells
 * winning, and count as one create (or update) followed by updates. What follows the writes
 * (webhooks, segment membership) runs in the chunk's transaction.
 */
export async function upsertChunk(trx: Db, projectId: number, contacts: CsvContact[], now: number): Promise<ChunkOutcome> {
  const byKey = mergeByAddress(contacts)
  const unsubscribing = [...byKey].filter(([, { contact }]) => contact.subscribed === false).map(([key]) => key)
  const wereSubscribed = await subscribedByKey(trx, projectId, unsubscribing)
  const proposed = new Map<string, string>()
  const setting: object[] = []
  const keeping: object[] = []
  for (const [key, { contact }] of byKey) {
    const id = newId()
    proposed.set(key, id)
    const row = {
      id,
      project_id: projectId,
      email: contact.address.address,
      email_key: key,
      subscribed: contact.subscribed === false ? 0 : 1,
      data: contact.data,
      created_at: now,
      updated_at: now,
    }
    ;(contact.subscribed === undefined ? keeping : setting).push(row)
  }
  const written = [
    ...(await insertMany<'contacts', { id: string; email_key: string }>(trx, 'contacts', COLUMNS, keeping, { jsonb: ['data'], then: KEEPING_SUBSCRIBED })),
    ...(await insertMany<'contacts', { id: string; email_key: string }>(trx, 'contacts', COLUMNS, setting, { jsonb: ['data'], then: SETTING_SUBSCRIBED })),
  ]
  const outcome: ChunkOutcome = { created: 0, updated: 0 }
  const createdIds: string[] = []
  const updatedIds: string[] = []
  for (const { id, email_key } of written) {
    const rows = byKey.get(email_key)!.rows
    const created = proposed.get(email_key) === id
    ;(created ? createdIds : updatedIds).push(id)
    outcome.created += created ? 1 : 0
    outcome.updated += created ? rows - 1 : rows
  }
  // Rows that say unsubscribed set it: those subscribed before the chunk stopped being.
  const unsubscribedIds = written.filter((w) => wereSubscribed.get(w.email_key) === w.id).map((w) => w.id)
  await contactsWritten(trx, projectId, { created: createdIds, updated: updatedIds, unsubscribed: unsubscribedIds }, now)
  return outcome
}

function mergeByAddress(contacts: CsvContact[]): Map<string, Merged> {
  const byKey = new Map<string, Merged>()
  for (const contact of contacts) {
    const seen = byKey.get(contact.address.key)
    if (!seen) {
      // The chunk's rows are its own: merging into the first one changes nothing of the caller's.
      byKey.set(contact.address.key, { contact, rows: 1 })
      continue
    }
    seen.rows++
    Object.assign(seen.contact.data, contact.data)
    if (contact.subscribed !== undefined) seen.contact.subscribed = contact.subscribed
  }
  return byKey
}
