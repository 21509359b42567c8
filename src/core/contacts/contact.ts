import { jsonText } from '../../db/json.ts'
import type { Direction } from '../../db/sorting.ts'
import type { ContactRow } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { invalid } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { findJsonFlaw } from '../../lib/json-check.ts'

/** How a contact came to be unsubscribed, said in contact.unsubscribed: an unsubscribe link or mail, a suppression, an update. */
export type UnsubscribeSource = 'link' | 'one-click' | 'mail' | 'hard_bounce' | 'complaint' | 'manual' | 'update'

export interface Contact {
  id: string
  email: string
  subscribed: boolean
  data: Record<string, unknown>
  createdAt: string
  updatedAt: string
}

/** A contact's columns under the alias `c`, its data as JSON text: how every contact is read. */
export const contactFields = ['c.id', 'c.project_id', 'c.email', 'c.email_key', 'c.subscribed', jsonText('c.data').as('data'), 'c.created_at', 'c.updated_at'] as const

export const toContact = (row: ContactRow): Contact => ({
  id: row.id,
  email: row.email,
  subscribed: row.subscribed === 1,
  data: JSON.parse(row.data),
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
})

const MAX_DATA_BYTES = 64 * 1024
const MAX_KEY_LENGTH = 200
/** Levels of objects and arrays, the data object itself the first: segment conditions and SQLite's JSON functions walk them. */
const MAX_DATA_DEPTH = 32

/**
 * Contact data is a JSON object of bounded size and depth whose keys are short, printable names
 * and whose strings are well-formed Unicode.
 */
export function checkContactData(data: Record<string, unknown>, field = 'data'): void {
  for (const key of Object.keys(data)) {
    if (key.length === 0 || key.length > MAX_KEY_LENGTH || /[\u0000-\u001f]/.test(key)) {
      throw invalid(`${field}.${key}`, `keys must be 1 to ${MAX_KEY_LENGTH} printable characters`)
    }
  }
  // Data that came in a request body is not walked again: the body's check remembered its levels.
  const flaw = findJsonFlaw(data, MAX_DATA_DEPTH)
  if (flaw?.problem === 'too-deep') throw invalid(field, `is nested more than ${MAX_DATA_DEPTH} levels deep`)
  if (flaw) throw invalid(`${field}.${flaw.path}`, 'is not well-formed Unicode: it holds a lone UTF-16 surrogate')
  if (Buffer.byteLength(JSON.stringify(data)) > MAX_DATA_BYTES) {
    throw invalid(field, `must be at most ${MAX_DATA_BYTES / 1024} KiB as JSON`)
  }
}

/** What a contact list may be sorted by, with the column each names; each has its index. */
export const CONTACT_SORTS = { createdAt: 'created_at', email: 'email_key' } as const
export type ContactSort = keyof typeof CONTACT_SORTS

/** Where a page ended, in the order it was read in: the last row's sort value and id. */
export interface ContactCursor {
  sort: ContactSort
  dir: Direction
  value: string | number
  id: string
}

/**
 * Cursors are opaque to clients: the order they were made in and the last row's place in it,
 * wrapped. A cursor carries its order so that one made under another sort or direction is
 * refused instead of skipping or repeating rows.
 */
export const encodeCursor = (c: ContactCursor): string => Buffer.from(`c2:${c.sort}:${c.dir}:${c.id}:${c.value}`).toString('base64url')

const CURSOR = /^c2:(createdAt|email):(asc|desc):([0-9a-f-]{36}):([\s\S]+)$/

export function decodeCursor(cursor: string, sort: ContactSort, dir: Direction): ContactCursor {
  const text = /^[A-Za-z0-9_-]{1,1600}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : ''
  const match = CURSOR.exec(text)
  if (!match || !isUuid(match[3]!) || (match[1] === 'createdAt' && !/^\d{1,16}$/.test(match[4]!))) {
    throw invalid('cursor', 'is not a cursor returned by a previous page')
  }
  if (match[1] !== sort || match[2] !== dir) {
    throw invalid('cursor', `was made for sort=${match[1]}&dir=${match[2]}: page on with those, or start again without a cursor`)
  }
  return { sort, dir, id: match[3]!, value: sort === 'createdAt' ? Number(match[4]) : match[4]! }
}

/** What an edit changed, each from and to: the data's keys (a removed key's `to` is null), the subscription, the address. */
export interface ContactEdit {
  data?: Record<string, { from: unknown; to: unknown }>
  subscribed?: { from: boolean; to: boolean }
  email?: { from: string; to: string }
}

/** What changed between two versions of a contact; undefined when nothing did. */
export function changesOf(before: ContactRow, after: ContactRow): ContactEdit | undefined {
  const changes: ContactEdit = {}
  const was = JSON.parse(before.data) as Record<string, unknown>
  const is = JSON.parse(after.data) as Record<string, unknown>
  const data: Record<string, { from: unknown; to: unknown }> = {}
  for (const key of new Set([...Object.keys(was), ...Object.keys(is)])) {
    if (JSON.stringify(was[key]) !== JSON.stringify(is[key])) data[key] = { from: was[key] ?? null, to: is[key] ?? null }
  }
  if (Object.keys(data).length > 0) changes.data = data
  if (before.subscribed !== after.subscribed) changes.subscribed = { from: before.subscribed === 1, to: after.subscribed === 1 }
  if (before.email !== after.email) changes.email = { from: before.email, to: after.email }
  return Object.keys(changes).length > 0 ? changes : undefined
}
