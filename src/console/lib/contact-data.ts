/**
 * A contact's data as the page edits it: one row per key, each with a type a person picks
 * (text, number, yes/no, date) and the value as typed. What is saved is only what changed, as
 * PATCH /contacts/{id} takes it: changed and new keys with their values, removed keys as null.
 */

export type DataType = 'string' | 'number' | 'boolean' | 'date' | 'null' | 'json'

export interface DataRow {
  /** Stable across edits of its key (React's key). */
  id: string
  key: string
  type: DataType
  /** The value as typed: 'true'/'false' for yes/no, an ISO instant or a datetime-local text for a date, JSON for a list or object. */
  text: string
}

/** The types a person may pick; null and JSON are shown as they came (a null is removed by saving). */
export const PICKABLE: ReadonlyArray<{ id: DataType; label: string }> = [
  { id: 'string', label: 'Text' },
  { id: 'number', label: 'Number' },
  { id: 'boolean', label: 'Yes/no' },
  { id: 'date', label: 'Date' },
]

export const TYPE_NAMES: Record<DataType, string> = { string: 'Text', number: 'Number', boolean: 'Yes/no', date: 'Date', null: 'Null', json: 'List or object' }

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/

/** A value's type as the page shows it: an ISO 8601 instant is a date. */
export function typeOf(value: unknown): DataType {
  if (value === null) return 'null'
  if (typeof value === 'number') return 'number'
  if (typeof value === 'boolean') return 'boolean'
  if (typeof value === 'string') return ISO.test(value) && !Number.isNaN(Date.parse(value)) ? 'date' : 'string'
  return 'json'
}

let made = 0
const nextId = () => `row-${++made}`

/** The rows of a contact's data, in its key order. */
export const rowsOf = (data: Record<string, unknown>): DataRow[] =>
  Object.entries(data).map(([key, value]) => {
    const type = typeOf(value)
    return { id: nextId(), key, type, text: type === 'json' ? JSON.stringify(value) : value === null ? '' : String(value) }
  })

/** A new, empty row. */
export const newRow = (): DataRow => ({ id: nextId(), key: '', type: 'string', text: '' })

/** The row's value, or the reason it has none. */
export function valueOf(row: DataRow): { value: unknown } | { problem: string } {
  switch (row.type) {
    case 'string':
      return { value: row.text }
    case 'number': {
      const n = Number(row.text.trim())
      return row.text.trim() !== '' && Number.isFinite(n) ? { value: n } : { problem: 'must be a number' }
    }
    case 'boolean':
      return row.text === 'true' || row.text === 'false' ? { value: row.text === 'true' } : { problem: 'must be yes or no' }
    case 'date': {
      const at = Date.parse(row.text)
      return Number.isNaN(at) ? { problem: 'must be a date and time' } : { value: new Date(at).toISOString() }
    }
    case 'null':
      return { value: null }
    case 'json':
      try {
        return { value: JSON.parse(row.text) as unknown }
      } catch {
        return { problem: 'must be JSON' }
      }
  }
}

/** The text a row keeps when its type changes: the same text when it still reads, else a start. */
export function retyped(row: DataRow, type: DataType): DataRow {
  const next = { ...row, type }
  if ('value' in valueOf(next)) return next
  return { ...next, text: type === 'boolean' ? 'true' : type === 'date' ? new Date().toISOString() : type === 'number' ? '0' : '' }
}

export type Patch = { data: Record<string, unknown> } | { problems: Record<string, string> }

/**
 * What saving the rows changes in `before`: the keys added or changed with their values, and those
 * removed (or left null) as null; or, by row id, what is wrong (a blank or repeated key, a value
 * that does not read as its type).
 */
export function dataPatch(before: Record<string, unknown>, rows: readonly DataRow[]): Patch {
  const problems: Record<string, string> = {}
  const after = new Map<string, unknown>()
  for (const row of rows) {
    const key = row.key.trim()
    if (key === '') problems[row.id] = 'Give the key a name'
    else if (after.has(key)) problems[row.id] = `"${key}" is there twice`
    const read = valueOf(row)
    if ('problem' in read) problems[row.id] ??= `The value ${read.problem}`
    else if (key !== '' && !after.has(key)) after.set(key, read.value)
  }
  if (Object.keys(problems).length > 0) return { problems }
  const data: Record<string, unknown> = {}
  for (const key of Object.keys(before)) if (!after.has(key) || after.get(key) === null) data[key] = null
  for (const [key, value] of after) {
    if (value !== null && JSON.stringify(before[key]) !== JSON.stringify(value)) data[key] = value
  }
  return { data }
}
