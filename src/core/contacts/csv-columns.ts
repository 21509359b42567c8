import { checkAddress, type Address } from '../../lib/address.ts'
import { AppError, invalid } from '../../lib/errors.ts'
import { checkContactData } from './contact.ts'

/*
 * What the columns of a contacts CSV mean, both ways: the header of an import and its cells, and
 * the cells of an export. `email` and `subscribed` are the contact's own fields; `createdAt` and
 * `updatedAt` (as an export writes them) are ignored on import; every other column is a data key.
 * A data key that has one of those names is written as `data.<key>`.
 */

const RESERVED = ['email', 'subscribed', 'createdAt', 'updatedAt'] as const
const DATA_PREFIX = 'data.'

export interface ColumnPlan {
  /** How many fields each row must have. */
  width: number
  email: number
  /** -1 when there is no subscribed column. */
  subscribed: number
  data: Array<{ index: number; key: string }>
}

const reservedName = (name: string) => RESERVED.find((r) => r.toLowerCase() === name.toLowerCase())

/** Reads a header row; a header that cannot be imported is a 422 saying why. */
export function planColumns(header: string[]): ColumnPlan {
  const plan: ColumnPlan = { width: header.length, email: -1, subscribed: -1, data: [] }
  const seen = new Set<string>()
  header.forEach((raw, index) => {
    const name = raw.trim()
    if (name === '') throw invalid('file', `column ${index + 1} of the header has no name`)
    const reserved = reservedName(name)
    const id = reserved ?? `data:${dataKeyOf(name)}`
    if (seen.has(id)) throw invalid('file', `the header names the column "${name}" twice`)
    seen.add(id)
    if (reserved === 'email') plan.email = index
    else if (reserved === 'subscribed') plan.subscribed = index
    else if (!reserved) plan.data.push({ index, key: dataKeyOf(name) })
  })
  if (plan.email < 0) {
    const found = header.slice(0, 10).map((h) => JSON.stringify(h.trim().slice(0, 40))).join(', ')
    throw invalid('file', `the CSV has no email column: the first line must be a header with one, and it has ${found}`)
  }
  checkKeys(plan.data.map((d) => d.key))
  return plan
}

const dataKeyOf = (name: string) =>
  name.toLowerCase().startsWith(DATA_PREFIX) && reservedName(name.slice(DATA_PREFIX.length)) ? name.slice(DATA_PREFIX.length) : name

function checkKeys(keys: string[]): void {
  try {
    checkContactData(Object.fromEntries(keys.map((key) => [key, 0])))
  } catch (error) {
    if (error instanceof AppError) throw invalid('file', `a column name is not a usable data key: ${error.message}`)
    throw error
  }
}

/** The header an export writes for these data keys. */
export const exportHeader = (keys: readonly string[]): string[] => [...RESERVED, ...keys.map((key) => (reservedName(key) ? DATA_PREFIX + key : key))]

export interface CsvContact {
  address: Address
  /** Absent when the row leaves it as it is (or as the default for a new contact). */
  subscribed?: boolean
  data: Record<string, unknown>
}

export type RowResult = { ok: true; contact: CsvContact } | { ok: false; message: string }

/** Rough bound of a row's data as JSON: only a row near the data limit is measured exactly. */
const JSON_EXPANSION = 6
const DATA_LIMIT = 64 * 1024

/** One data row: the contact it describes, or why it cannot be imported. */
export function readRow(fields: string[], plan: ColumnPlan): RowResult {
  if (fields.length !== plan.width) {
    return { ok: false, message: `the row has ${fields.length} ${fields.length === 1 ? 'field' : 'fields'} where the header has ${plan.width}` }
  }
  const email = fields[plan.email]!.trim()
  if (email === '') return { ok: false, message: 'the email is empty' }
  const address = checkAddress(email)
  if (!address.ok) return { ok: false, message: `${JSON.stringify(email.slice(0, 100))}: ${address.reason}` }
  const subscribed = plan.subscribed < 0 ? undefined : parseSubscribed(fields[plan.subscribed]!)
  if (subscribed === null) return { ok: false, message: 'subscribed must be true, false, yes, no, 1 or 0 (or empty)' }
  const data: Record<string, unknown> = {}
  let size = 0
  for (const { index, key } of plan.data) {
    const cell = fields[index]!
    if (cell === '') continue
    data[key] = cellValue(cell)
    size += cell.length + key.length
  }
  if (size * JSON_EXPANSION > DATA_LIMIT && Buffer.byteLength(JSON.stringify(data)) > DATA_LIMIT) {
    return { ok: false, message: 'the row\'s data is larger than 64 KiB as JSON' }
  }
  return { ok: true, contact: { address: address.value, ...(subscribed !== undefined && { subscribed }), data } }
}

const TRUE = new Set(['true', 'yes', '1'])
const FALSE = new Set(['false', 'no', '0'])

/** A subscribed cell: undefined when empty, null when it is not a yes or a no. */
export function parseSubscribed(cell: string): boolean | undefined | null {
  const text = cell.trim().toLowerCase()
  if (text === '') return undefined
  return TRUE.has(text) ? true : FALSE.has(text) ? false : null
}

/**
 * A data cell's value. `true` and `false` are booleans; a number written as JSON writes it
 * (`34`, `-2`, `3.5`, but not `02139`, `1e3` or `1.0`) is a number; JSON text of an object, an
 * array or a string (as an export writes them) is that value; anything else is the text itself.
 */
export function cellValue(cell: string): unknown {
  if (cell === 'true') return true
  if (cell === 'false') return false
  const first = cell.charCodeAt(0)
  if ((first >= 0x30 && first <= 0x39) || first === 0x2d) {
    const number = Number(cell)
    return JSON.stringify(number) === cell ? number : cell
  }
  if (first === 0x7b || first === 0x5b || first === 0x22) return parsedJson(cell, first) ?? cell
  return cell
}

function parsedJson(cell: string, first: number): unknown {
  try {
    const value = JSON.parse(cell)
    const expected = first === 0x22 ? 'string' : 'object'
    return typeof value === expected && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

/** How an export writes a data value, so that `cellValue` reads it back as it was. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value !== '' && cellValue(value) === value ? value : JSON.stringify(value)
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}
