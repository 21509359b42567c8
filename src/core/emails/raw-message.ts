/** How far into a message its header block is looked for. */
const HEAD_LIMIT = 256 * 1024

/**
 * Where a raw message's header block ends and its body starts (CRLF or bare LF). The bytes are
 * searched as they are; only the header block is decoded.
 */
export function splitHead(raw: Uint8Array): { head: string; bodyStart: number } {
  const window = Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, HEAD_LIMIT))
  const crlf = window.indexOf('\r\n\r\n')
  // A bare-LF blank line counts only if it comes first: look no further than the CRLF one.
  const lf = window.subarray(0, crlf >= 0 ? crlf + 2 : window.length).indexOf('\n\n')
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) return { head: window.toString('latin1', 0, crlf), bodyStart: crlf + 4 }
  if (lf >= 0) return { head: window.toString('latin1', 0, lf), bodyStart: lf + 2 }
  return { head: window.toString('latin1'), bodyStart: raw.byteLength }
}

export interface Header {
  /** Lower case. */
  name: string
  /** Unfolded, trimmed; as bytes read as latin1 (decode 8-bit values yourself). */
  value: string
}

/** The header fields of a header block, folded lines joined. */
export function parseHeaders(head: string): Header[] {
  const headers: Header[] = []
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && headers.length > 0) headers.at(-1)!.value += ' ' + line.trim()
    else {
      const colon = line.indexOf(':')
      if (colon > 0) headers.push({ name: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).trim() })
    }
  }
  return headers
}

/** A header's value, its 8-bit bytes read as UTF-8 (RFC 6532). */
export function headerValue(headers: Header[], name: string): string | undefined {
  const value = headers.find((h) => h.name === name)?.value
  return value === undefined || !/[\x80-\xff]/.test(value) ? value : Buffer.from(value, 'latin1').toString('utf8')
}

/** The message with header lines added at the top (each CRLF-terminated). */
export function prependHeaders(raw: Uint8Array, lines: string[]): Uint8Array {
  if (lines.length === 0) return raw
  return Buffer.concat([Buffer.from(lines.map((line) => `${line}\r\n`).join('')), raw])
}
