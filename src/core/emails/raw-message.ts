/** How far into a message its header block is looked for. */
export const HEAD_LIMIT = 256 * 1024

export interface Field {
  /** Lower case, trimmed. */
  name: string
  /** The name as written. */
  label: string
  /** Unfolded, trimmed; as bytes read as latin1 (decode 8-bit values yourself). */
  value: string
  /** Where the field's first line starts in the message. */
  start: number
  /** Just past the line end of its last (folded) line. */
  end: number
}

export interface Head {
  fields: Field[]
  /** Where the blank line that ends the header block starts (the message's length if it has none). */
  end: number
  bodyStart: number
  /** False when no end of the header block was found within HEAD_LIMIT of a longer message. */
  complete: boolean
  /** The first line of the header block that is neither a field nor the continuation of one (1-based). */
  strayLine?: number
}

/**
 * The header block of a raw message: where it ends (the first blank line, CRLF or bare LF) and its
 * fields with their places, folded lines joined. Only the header block is decoded, as latin1, so
 * that offsets in it are byte offsets.
 */
export function readHead(raw: Uint8Array): Head {
  const window = Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, HEAD_LIMIT))
  const crlf = window.indexOf('\r\n\r\n')
  // A bare-LF blank line counts only if it comes first: look no further than the CRLF one.
  const lf = window.subarray(0, crlf >= 0 ? crlf + 2 : window.length).indexOf('\n\n')
  let end = window.length
  let bodyStart = raw.byteLength
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) [end, bodyStart] = [crlf + 2, crlf + 4]
  else if (lf >= 0) [end, bodyStart] = [lf + 1, lf + 2]
  const complete = end < window.length || raw.byteLength <= HEAD_LIMIT
  return { ...parseFields(window.toString('latin1', 0, end)), end, bodyStart, complete }
}

const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+[ \t]*:/

function parseFields(text: string): { fields: Field[]; strayLine?: number } {
  const fields: Field[] = []
  let strayLine: number | undefined
  let start = 0
  for (let n = 1; start < text.length; n++) {
    const lf = text.indexOf('\n', start)
    const end = lf < 0 ? text.length : lf + 1
    const line = text.slice(start, lf < 0 ? end : lf).replace(/\r$/, '')
    const last = fields.at(-1)
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      last.value = `${last.value} ${line.trim()}`.trim()
      last.end = end
    } else if (FIELD_NAME.test(line)) {
      const colon = line.indexOf(':')
      const label = line.slice(0, colon).trim()
      fields.push({ name: label.toLowerCase(), label, value: line.slice(colon + 1).trim(), start, end })
    } else strayLine ??= n
    start = end
  }
  return strayLine === undefined ? { fields } : { fields, strayLine }
}

/** A field's value read as UTF-8 (RFC 6532) when it has 8-bit bytes. */
export const utf8Value = (value: string) => (/[\x80-\xff]/.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value)

/** The first field of that name's value, 8-bit bytes read as UTF-8. */
export function headerValue(fields: Field[], name: string): string | undefined {
  const value = fields.find((f) => f.name === name)?.value
  return value === undefined ? undefined : utf8Value(value)
}

/** A change to one field: taken out, or replaced by `line` (folds included, CRLF added; a latin1 string of its bytes, as values are). */
export interface FieldEdit {
  field: Field
  line?: string
}

/**
 * The message with `add` lines at the top (each given CRLF) and the edited fields taken out or
 * replaced where they stand; every other byte as it was. With nothing to add or edit it answers
 * the message itself, uncopied.
 */
export function rewriteHead(raw: Uint8Array, add: string[], edits: FieldEdit[] = []): Uint8Array {
  if (add.length === 0 && edits.length === 0) return raw
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
  const parts: Buffer[] = add.length > 0 ? [Buffer.from(add.map((line) => `${line}\r\n`).join(''))] : []
  let kept = 0
  for (const { field, line } of [...edits].sort((a, b) => a.field.start - b.field.start)) {
    parts.push(bytes.subarray(kept, field.start))
    if (line !== undefined) parts.push(Buffer.from(`${line}\r\n`, 'latin1'))
    kept = field.end
  }
  parts.push(bytes.subarray(kept))
  return Buffer.concat(parts)
}
