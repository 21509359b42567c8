import { checkAddress, type Address } from '../../lib/address.ts'
import { CsvReader } from '../../lib/csv-reader.ts'

/*
 * A suppression list as a CSV file, as other platforms export them: a column of addresses, with a
 * header naming it `email` (and perhaps `detail` or `reason` beside it) or no header at all (the
 * first column is the address). Read whole: a suppression list is small beside a contact list.
 */

export interface ListedAddress {
  line: number
  address: Address
  detail: string | null
}

export interface Unreadable {
  line: number
  error: string
}

/** A line longer than this is not an address line. */
const MAX_RECORD_BYTES = 4096
const DETAIL_LENGTH = 500
const HEADER_EMAIL = /^\s*e-?mail(\s*address)?\s*$/i
const HEADER_DETAIL = /^\s*(detail|reason|note|comment)s?\s*$/i

export function readSuppressionCsv(bytes: Uint8Array): { listed: ListedAddress[]; unreadable: Unreadable[] } {
  const records: Array<{ line: number; fields?: string[]; error?: string }> = []
  const reader = new CsvReader({ maxRecordBytes: MAX_RECORD_BYTES }, (item) => records.push(item))
  reader.push(bytes)
  reader.end()
  const first = records[0]?.fields
  const emailColumn = first?.findIndex((field) => HEADER_EMAIL.test(field)) ?? -1
  const header = emailColumn >= 0
  const detailColumn = header ? first!.findIndex((field) => HEADER_DETAIL.test(field)) : -1
  const listed: ListedAddress[] = []
  const unreadable: Unreadable[] = []
  for (const record of header ? records.slice(1) : records) {
    if (!record.fields) {
      unreadable.push({ line: record.line, error: record.error ?? 'the line cannot be read' })
      continue
    }
    // A blank line is no entry.
    if (record.fields.every((field) => field.trim() === '')) continue
    const text = (record.fields[header ? emailColumn : 0] ?? '').trim()
    const checked = checkAddress(text)
    if (!checked.ok) {
      unreadable.push({ line: record.line, error: text === '' ? 'no address' : `"${text.slice(0, 100)}" is not an address: ${checked.reason}` })
      continue
    }
    const detail = detailColumn >= 0 ? (record.fields[detailColumn] ?? '').trim().slice(0, DETAIL_LENGTH) : ''
    listed.push({ line: record.line, address: checked.value, detail: detail || null })
  }
  return { listed, unreadable }
}
