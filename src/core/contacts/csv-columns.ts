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

/** What a column of an import becomes: the contact's email or subscribed, a data key, or nothing. */
export type ColumnTarget = 'email' | 'subscribed' | 'ignore' | `data.${string}`

/** Targets chosen by the importer, by column name (as the header writes it, trimmed); other columns are guessed. */
export type ColumnMapping = Record<string, ColumnTarget>

const TARGETS = 'email, subscribed, ignore or data.<key>'

/** The target a column's name suggests, as an import without a mapping reads it. */
export function guessTarget(name: string): ColumnTarget {
  const reserved = reservedName(name)
  if (reserved === 'email' || reserved === 'subscribed') return reserved
  return reserved ? 'ignore' : `data.${dataKeyOf(name)}`
}

/** A mapping as sent (JSON text of a form field): an object of column name to target, else a 422 on `mapping`. */
export function parseMapping(text: string): ColumnMapping {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw invalid('mapping', `is not JSON: it must be an object of column name to ${TARGETS}`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('mapping', `must be a JSON object of column name to ${TARGETS}`)
  for (const [column, target] of Object.entries(value)) {
    const ok = target === 'email' || target === 'subscribed' || target === 'ignore' || (typeof target === 'string' && target.startsWith(DATA_PREFIX) && target.length > DATA_PREFIX.length)
    if (!ok) throw invalid('mapping', `maps "${column.slice(0, 60)}" to ${JSON.stringify(target)?.slice(0, 60)}: a column goes to ${TARGETS}`)
  }
  return value as ColumnMapping
}

/**
 * Reads a header row, with the importer's mapping when there is one; a header that cannot be
 * imported is a 422 on `file`, a mapping that does not fit it a 422 on `mapping`, saying why.
 */
export function planColumns(header: string[], mapping?: ColumnMapping): ColumnPlan {
  const plan: ColumnPlan = { width: header.length, email: -1, subscribed: -1, data: [] }
  const names = header.map((raw) => raw.trim())
  names.forEach((name, index) => {
    if (name === '') throw invalid('file', `column ${index + 1} of the header has no name`)
    if (names.indexOf(name) !== index) throw invalid('file', `the header names the column "${name}" twice: each column needs its own name`)
  })
  const unknown = Object.keys(mapping ?? {}).find((column) => !names.includes(column.trim()))
  if (unknown !== undefined) throw invalid('mapping', `names the column "${unknown.slice(0, 60)}", which the header does not have (it has ${listed(names)})`)
  const chosen = new Map(Object.entries(mapping ?? {}).map(([column, target]) => [column.trim(), target]))
  const byTarget = new Map<string, string>()
  names.forEach((name, index) => {
    const target = chosen.get(name) ?? guessTarget(name)
    if (target === 'ignore') return
    const id = target.startsWith(DATA_PREFIX) ? `data:${target.slice(DATA_PREFIX.length)}` : target
    const other = byTarget.get(id)
    if (other !== undefined) {
      if (chosen.has(name) || chosen.has(other)) throw invalid('mapping', `maps both "${other}" and "${name}" to ${target}: choose one, and ignore the other`)
      throw invalid('file', `the header names the column "${name}" twice: each column needs its own name`)
    }
    byTarget.set(id, name)
    if (target === 'email') plan.email = index
    else if (target === 'subscribed') plan.subscribed = index
    else plan.data.push({ index, key: target.slice(DATA_PREFIX.length) })
  })
  if (plan.email < 0) {
    if (mapping) throw invalid('mapping', 'maps no column to email: choose the column that holds the addresses')
    throw invalid('file', `the CSV has no email column: the first line must be a header with one, and it has ${listed(header)}`)
  }
  checkKeys(plan.data.map((d) => d.key))
  return plan
}

const listed = (names: string[]) => names.slice(0, 10).map((h) => JSON.stringify(h.trim().slice(0, 40))).join(', ')

const dataKeyOf = (name: string) =>
  name.toLowerCase().startsWith(DATA_PREFIX) && reservedName(name.slice(DATA_PREFIX.length)) ? name.slice(DATA_PREFIX.length) : name

function checkKeys(keys: string[]): void {
  try {
    checkContactData(Object.fromEntries(keys.map((key) => [key, 0])))
  } catch (error) {
    if (error instanceof AppError) throw invalid('file', `a column name is not a usable data key: ${error.message} (map the column to another key, or ignore it)`)
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
