import { sql } from 'kysely'
import { jsonFromPatch, jsonMergePatch } from '../../db/json.ts'
import { recordTable, textsIn } from '../../db/lists.ts'
import type { Db } from '../../db/schema.ts'
import type { Address } from '../../lib/address.ts'
import { newId } from '../../lib/ids.ts'
import type { ContactWrites } from '../reactions.ts'
import { subscribedByKey } from './contacts.repository.ts'

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
 * applied in order. Answers the contacts' ids in input order, and what was written for the
 * caller to report (src/core/reactions.ts).
 */
export async function upsertContacts(db: Db, projectId: number, contacts: readonly ContactUpsert[], now: number): Promise<{ ids: string[]; writes: ContactWrites }> {
  const wereSubscribed = await subscribedByKey(db, projectId, contacts.filter((contact) => contact.subscribed === false).map((contact) => contact.address.key))
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
  const found = await db
    .selectFrom('contacts')
    .select(['id', 'email_key', 'subscribed'])
    .where('project_id', '=', projectId)
    .where('email_key', 'in', textsIn(db, keys))
    .execute()
  const ids = new Map(found.map((row) => [row.email_key, row.id]))
  // A contact whose id is one proposed here was inserted here; the others existed before.
  const created = found.filter((row) => proposed.has(row.id)).map((row) => row.id)
  const updated = found.filter((row) => !proposed.has(row.id) && changed.has(row.email_key)).map((row) => row.id)
  const unsubscribed = found.filter((row) => row.subscribed === 0 && wereSubscribed.get(row.email_key) === row.id).map((row) => row.id)
  return { ids: contacts.map((contact) => ids.get(contact.address.key)!), writes: { created, updated, unsubscribed } }
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

/** The fields of the rows as they travel, and the type each is read as. */
const ROW_FIELDS = { id: 'text', key: 'text', email: 'text', subscribed: 'bigint', data: 'json' } as const

type Row = { id: string; key: string; email: string; subscribed?: boolean; data?: Record<string, unknown> }

/** A row as it travels in JSON: subscribed as 1 or 0, which both databases read as a number. */
const travelling = (row: Partial<Row>) => ({ ...row, subscribed: row.subscribed === undefined ? undefined : row.subscribed ? 1 : 0 })

async function updateExisting(db: Db, projectId: number, rows: Row[], now: number): Promise<void> {
  const changes = rows.filter((row) => row.subscribed !== undefined || row.data !== undefined).map(({ key, subscribed, data }) => travelling({ key, subscribed, data }))
  if (changes.length === 0) return
  const j = recordTable(db, 'j', ROW_FIELDS, changes)
  await sql`UPDATE contacts SET
      subscribed = coalesce(${j.field('subscribed')}, contacts.subscribed),
      data = ${jsonMergePatch('contacts.data', j.field('data'))},
      updated_at = ${now}
    FROM ${j.table}
    WHERE contacts.project_id = ${projectId} AND contacts.email_key = ${j.field('key')}`.execute(db)
}

async function insertNew(db: Db, projectId: number, rows: Row[], now: number): Promise<void> {
  const j = recordTable(db, 'j', ROW_FIELDS, rows.map(travelling))
  // `WHERE true` keeps SQLite from reading the conflict clause as part of the SELECT.
  await sql`INSERT INTO contacts (id, project_id, email, email_key, subscribed, data, created_at, updated_at)
    SELECT ${j.field('id')}, ${projectId}, ${j.field('email')}, ${j.field('key')}, coalesce(${j.field('subscribed')}, 1),
      ${jsonFromPatch(sql`coalesce(${j.field('data')}, '{}')`)}, ${now}, ${now}
    FROM ${j.table} WHERE true
    ON CONFLICT (project_id, email_key) DO NOTHING`.execute(db)
}
