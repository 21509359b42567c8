import { sql } from 'kysely'
import { dialectOf } from '../../db/client.ts'
import { jsonFromPatch, jsonMergePatch } from '../../db/json.ts'
import { jsonRows, rowField } from '../../db/json-params.ts'
import type { Db } from '../../db/schema.ts'
import type { Address } from '../../lib/address.ts'
import { newId } from '../../lib/ids.ts'
import { emitContactsWritten } from '../webhooks/contact-events.ts'
import { inList } from './segments.repository.ts'

/** A contact to create or update, its address and data already checked. */
export interface ContactUpsert {
  address: Address
  /** Changes only when given; a new contact without it is subscribed. */
  subscribed?: boolean
  /** Merged into the contact's data (a null value removes its key). */
  data?: Record<string, unknown>
}

/**
 * Creates or updates many contacts by address with a few statements however many there are, as
 * saveContact would one by one: an update changes only what is given. An address given twice is
 * applied in order. Answers the contacts' ids in input order.
 */
export async function upsertContacts(db: Db, projectId: number, contacts: readonly ContactUpsert[], now: number): Promise<string[]> {
  const proposed = new Set<string>()
  const changed = new Set<string>()
  for (const wave of waves(contacts)) {
    const rows = wave.map((contact) => ({
      id: newId(),
      key: contact.address.key,
      email: contact.address.address,
      subscribed: contact.subscribed,
      data: contact.data,
    }))
    for (const row of rows) {
      proposed.add(row.id)
      if (row.subscribed !== undefined || row.data !== undefined) changed.add(row.key)
    }
    await updateExisting(db, projectId, rows, now)
    await insertNew(db, projectId, rows, now)
  }
  const keys = [...new Set(contacts.map((contact) => contact.address.key))]
  const found = await db.selectFrom('contacts').select(['id', 'email_key']).where('project_id', '=', projectId).where('email_key', 'in', inList(db, keys)).execute()
  const ids = new Map(found.map((row) => [row.email_key, row.id]))
  // A contact whose id is one proposed here was inserted here; the others existed before.
  const created = found.filter((row) => proposed.has(row.id)).map((row) => row.id)
  const updated = found.filter((row) => !proposed.has(row.id) && changed.has(row.email_key)).map((row) => row.id)
  await emitContactsWritten(db, projectId, created, updated, now)
  return contacts.map((contact) => ids.get(contact.address.key)!)
}

/** The contacts split so that no address appears twice in one part: its first mentions, its second ones, ... */
function waves(contacts: readonly ContactUpsert[]): ContactUpsert[][] {
  const seen = new Map<string, number>()
  const parts: ContactUpsert[][] = []
  for (const contact of contacts) {
    const n = seen.get(contact.address.key) ?? 0
    seen.set(contact.address.key, n + 1)
    ;(parts[n] ??= []).push(contact)
  }
  return parts
}

type Row = { id: string; key: string; email: string; subscribed?: boolean; data?: Record<string, unknown> }

/** A row as it travels in JSON: subscribed as 1 or 0, which both databases read as a number. */
const travelling = (row: Partial<Row>) => ({ ...row, subscribed: row.subscribed === undefined ? undefined : row.subscribed ? 1 : 0 })

async function updateExisting(db: Db, projectId: number, rows: Row[], now: number): Promise<void> {
  const changes = rows.filter((row) => row.subscribed !== undefined || row.data !== undefined).map(({ key, subscribed, data }) => travelling({ key, subscribed, data }))
  if (changes.length === 0) return
  const dialect = dialectOf(db)
  const field = (name: string, type: 'text' | 'integer' | 'json') => rowField(dialect, 'j', name, type)
  await sql`UPDATE contacts SET
      subscribed = coalesce(${field('subscribed', 'integer')}, contacts.subscribed),
      data = ${jsonMergePatch('contacts.data', field('data', 'json'))},
      updated_at = ${now}
    FROM ${jsonRows(dialect, changes, 'j')}
    WHERE contacts.project_id = ${projectId} AND contacts.email_key = ${field('key', 'text')}`.execute(db)
}

async function insertNew(db: Db, projectId: number, rows: Row[], now: number): Promise<void> {
  const dialect = dialectOf(db)
  const field = (name: string, type: 'text' | 'integer' | 'json') => rowField(dialect, 'j', name, type)
  // `WHERE true` keeps SQLite from reading the conflict clause as part of the SELECT.
  await sql`INSERT INTO contacts (id, project_id, email, email_key, subscribed, data, created_at, updated_at)
    SELECT ${field('id', 'text')}, ${projectId}, ${field('email', 'text')}, ${field('key', 'text')}, coalesce(${field('subscribed', 'integer')}, 1),
      ${jsonFromPatch(sql`coalesce(${field('data', 'json')}, '{}')`)}, ${now}, ${now}
    FROM ${jsonRows(dialect, rows.map(travelling), 'j')} WHERE true
    ON CONFLICT (project_id, email_key) DO NOTHING`.execute(db)
}
