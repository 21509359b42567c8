/** One header field of a message as a reader sees it: unfolded, encoded words decoded. */
export interface HeaderLine {
  name: string
  value: string
}

const ENCODED_WORD = /=\?([^?\s]+)\?([bqBQ])\?([^?\s]*)\?=/g

function decodeWord(charset: string, encoding: string, text: string): string {
  const bytes =
    encoding.toUpperCase() === 'B'
      ? Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
      : Uint8Array.from(text.replace(/_/g, ' ').replace(/=([0-9a-fA-F]{2})|[^]/g, (all, hex: string | undefined) => (hex ? String.fromCharCode(parseInt(hex, 16)) : all)), (c) => c.charCodeAt(0))
  try {
    return new TextDecoder(charset.replace(/\*.*$/, ''), { fatal: false }).decode(bytes)
  } catch {
    return `=?${charset}?${encoding}?${text}?=`
  }
}

/** RFC 2047 encoded words decoded; the whitespace between two adjacent ones dropped, as the RFC says. */
export function decodeEncodedWords(value: string): string {
  return value.replace(/(\?=)\s+(?==\?)/g, '$1').replace(ENCODED_WORD, (word, charset: string, encoding: string, text: string) => {
    try {
      return decodeWord(charset, encoding, text)
    } catch {
      return word
    }
  })
}

/**
 * The header block of a raw message (up to its first empty line, CRLF or LF) as fields in their
 * order, folded lines joined. A line that continues nothing is kept as a field without a name
 * rather than dropped, so that nothing the receiver got is hidden.
 */
export function parseHeaders(raw: string): HeaderLine[] {
  const end = raw.search(/\r?\n\r?\n/)
  const lines = (end < 0 ? raw : raw.slice(0, end)).split(/\r?\n/)
  const fields: HeaderLine[] = []
  for (const line of lines) {
    const last = fields.at(-1)
    if (/^[ \t]/.test(line) && last) last.value = `${last.value} ${line.trim()}`.trim()
    else {
      const colon = line.indexOf(':')
      if (colon > 0) fields.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() })
      else if (line !== '') fields.push({ name: '', value: line })
    }
  }
  return fields.map((f) => ({ name: f.name, value: decodeEncodedWords(f.value) }))
}

/** Who a From names, as an inbox lists it: the display name (unquoted) when there is one, else the address. */
export function senderName(from: string): string {
  const match = /^\s*(.*?)\s*<([^<>]*)>\s*$/.exec(from)
  if (!match) return from.trim()
  const name = match[1]!.replace(/^"(.*)"$/, '$1').replace(/\\(.)/g, '$1').trim()
  return name || match[2]!.trim()
}
