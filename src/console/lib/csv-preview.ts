/*
 * The mapping step of a contact import, read in the browser from the start of the file: its
 * header, its first rows, a guess of what each column is, and the rows as they will be imported.
 * The server reads the whole file again, and its answer (src/core/contacts/csv-columns.ts) decides.
 */

export type ColumnKind = 'email' | 'subscribed' | 'data' | 'ignore'

export interface ColumnChoice {
  /** The column's name, as the header writes it (trimmed). */
  name: string
  kind: ColumnKind
  /** The data key, when kind is data. */
  key: string
}

export interface CsvPreview {
  header: string[]
  /** The first rows (at most PREVIEW_ROWS), each its fields. */
  rows: string[][]
  /** False when the bytes read are not UTF-8: the server will refuse the file. */
  utf8: boolean
}

export const PREVIEW_ROWS = 5
/** Bytes read for the preview: enough for a header and five ordinary rows. */
const PREVIEW_BYTES = 64 * 1024

/** Splits CSV text into records of fields: quotes, doubled quotes, commas and line breaks in quotes, CRLF. */
export function parseCsv(text: string, maxRecords: number): string[][] {
  const records: string[][] = []
  let fields: string[] = []
  let field = ''
  let quoted = false
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const endRecord = () => {
    fields.push(field)
    if (!(fields.length === 1 && fields[0] === '')) records.push(fields)
    fields = []
    field = ''
  }
  for (; at < text.length && records.length < maxRecords; at++) {
    const char = text[at]!
    if (quoted) {
      if (char !== '"') field += char
      else if (text[at + 1] === '"') (field += '"'), at++
      else quoted = false
    } else if (char === '"' && field === '') quoted = true
    else if (char === ',') fields.push(field), (field = '')
    else if (char === '\n') endRecord()
    else if (char !== '\r') field += char
  }
  // The text may stop mid-record (the preview reads the file's start): a last record is kept only when whole.
  if (at >= text.length && !quoted && (field !== '' || fields.length) && records.length < maxRecords) endRecord()
  return records
}

/** Reads the file's header and first rows. */
export async function readPreview(file: Blob): Promise<CsvPreview> {
  const bytes = new Uint8Array(await file.slice(0, PREVIEW_BYTES).arrayBuffer())
  let text: string
  let utf8 = true
  try {
    // `stream` leaves a character cut at the slice's end unread instead of refusing it.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: bytes.length === PREVIEW_BYTES })
  } catch {
    utf8 = false
    text = new TextDecoder('utf-8').decode(bytes)
  }
  const whole = file.size <= PREVIEW_BYTES
  const records = parseCsv(whole ? text : text.slice(0, text.lastIndexOf('\n') + 1), PREVIEW_ROWS + 1)
  return { header: (records[0] ?? []).map((name) => name.trim()), rows: records.slice(1), utf8 }
}

const RESERVED_IGNORED = ['createdat', 'updatedat']

/** What a column's name suggests, as the server reads a header without a mapping; a name with "mail" in it is taken for the email when no column is named email. */
export function guessColumns(header: string[]): ColumnChoice[] {
  const lower = header.map((name) => name.toLowerCase())
  const email = lower.indexOf('email') >= 0 ? lower.indexOf('email') : lower.findIndex((name) => name.includes('mail'))
  return header.map((name, index) => {
    const low = lower[index]!
    if (index === email) return { name, kind: 'email', key: '' }
    if (low === 'subscribed') return { name, kind: 'subscribed', key: '' }
    if (RESERVED_IGNORED.includes(low) || low === 'email') return { name, kind: 'ignore', key: '' }
    return { name, kind: 'data', key: low.startsWith('data.') ? name.slice(5) : name }
  })
}

/** The mapping sent with the upload: every column, by name. */
export const mappingOf = (choices: ColumnChoice[]) =>
  Object.fromEntries(choices.map((c) => [c.name, c.kind === 'data' ? (`data.${c.key.trim()}` as const) : c.kind]))

/** What is wrong with the choices before they are sent, in words; empty when nothing is. */
export function choiceProblems(choices: ColumnChoice[]): string[] {
  const problems: string[] = []
  const emails = choices.filter((c) => c.kind === 'email').length
  if (emails === 0) problems.push('Choose the column that holds the email addresses.')
  if (emails > 1) problems.push('Only one column can be the email.')
  if (choices.filter((c) => c.kind === 'subscribed').length > 1) problems.push('Only one column can be Subscribed.')
  const keys = choices.filter((c) => c.kind === 'data').map((c) => c.key.trim())
  if (keys.some((key) => key === '')) problems.push('Each data column needs a key name.')
  const twice = keys.find((key, index) => key !== '' && keys.indexOf(key) !== index)
  if (twice) problems.push(`Two columns go to the data key "${twice}".`)
  return problems
}

/** Why the server will refuse a row, as far as the browser can tell (the server checks more); undefined when it looks fine. */
function refusal(row: string[], width: number, email: string): string | undefined {
  if (row.length !== width) return `the row has ${row.length} ${row.length === 1 ? 'field' : 'fields'} where the header has ${width}`
  if (email === '') return 'the email is empty'
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return 'not a valid address'
  return undefined
}

/** The first rows as they will be imported: email, subscribed and the data keys, and why a row will be refused. */
export function importedRows(preview: CsvPreview, choices: ColumnChoice[]) {
  const index = (kind: ColumnKind) => choices.findIndex((c) => c.kind === kind)
  const email = index('email')
  const subscribed = index('subscribed')
  const data = choices.map((c, i) => ({ ...c, i })).filter((c) => c.kind === 'data')
  return {
    columns: ['email', ...(subscribed >= 0 ? ['subscribed'] : []), ...data.map((d) => d.key.trim() || '(no key)')],
    rows: preview.rows.map((row) => {
      const address = email >= 0 ? (row[email] ?? '').trim() : ''
      return {
        cells: [address, ...(subscribed >= 0 ? [row[subscribed] ?? ''] : []), ...data.map((d) => row[d.i] ?? '')],
        refused: email >= 0 ? refusal(row, preview.header.length, address) : undefined,
      }
    }),
  }
}
