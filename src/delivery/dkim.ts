import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto'
import { domainToASCII } from 'node:url'

export interface SigningKey {
  /** d= */
  domain: string
  /** s= */
  selector: string
  privateKeyPem: string
  algorithm: 'rsa-sha256' | 'ed25519-sha256'
}

/** Signed when present (RFC 6376 5.4): what a forwarder must not change. */
export const SIGNED_HEADERS = [
  'from', 'to', 'cc', 'subject', 'date', 'message-id', 'reply-to', 'mime-version', 'content-type',
  'content-transfer-encoding', 'in-reply-to', 'references', 'list-unsubscribe', 'list-unsubscribe-post',
].join(':')

const SIGNED = new Set(SIGNED_HEADERS.split(':'))

/**
 * Named once more in h= than they occur (over-signing, RFC 6376 8.15): a verifier then counts the
 * missing one as empty, so a From, To, Subject or Date added on the way breaks the signature
 * instead of being shown to the reader above the signed one.
 */
export const OVERSIGNED = ['from', 'to', 'subject', 'date'] as const

const CR = 0x0d
const LF = 0x0a
const SP = 0x20
const TAB = 0x09
const CRLF = new Uint8Array([CR, LF])

/**
 * The DKIM-Signature header(s) for a message, relaxed/relaxed, one per key, CRLF-terminated.
 *
 * One pass over the bytes: the header block is split into fields and only the signed ones are
 * canonicalised; the body is canonicalised (RFC 6376 3.4.4) and hashed as it is scanned, whole
 * runs of lines that are already canonical handed to the hash as they are, so nothing of the
 * body is copied unless a line needs fixing. The body hash is made once for every key. A bare LF
 * counts as a line end, as it does on the wire. Whitespace is SP and HTAB only (RFC 5234 WSP),
 * never other bytes: an 8-bit header is signed as a verifier that follows the RFC reads it.
 */
export async function signMessage(message: Uint8Array, keys: readonly SigningKey[], at: number): Promise<string> {
  return signSync(message, keys, at)
}

function signSync(message: Uint8Array, keys: readonly SigningKey[], at: number): string {
  const { fields, bodyStart } = headerFields(message)
  // Every occurrence of a signed name, bottom up (RFC 6376 5.4.2: a verifier takes them the same way).
  const signed = fields.filter((f) => SIGNED.has(f.name)).reverse()
  const canonicalHeaders = signed.map((f) => relaxedHeader(f.raw)).join('')
  const bodyHash = relaxedBodyHash(message, bodyStart)
  const t = Math.floor(at / 1000)
  return keys.map((key) => signatureHeader(key, signed, canonicalHeaders, bodyHash, t)).join('')
}

interface Field {
  /** Lower case, without surrounding WSP. */
  name: string
  /** The whole field, folding kept, line ends as in the message (latin1: one char per byte). */
  raw: string
}

/** The header fields, and where the body starts (after the first empty line; the end when there is none). */
function headerFields(message: Uint8Array): { fields: Field[]; bodyStart: number } {
  const n = message.length
  let end = 0
  let bodyStart = n
  // The header block ends at the first empty line; each line ends at LF (a CR before it included).
  for (let pos = 0; pos < n; ) {
    const lf = message.indexOf(LF, pos)
    if (lf < 0) {
      end = n
      break
    }
    const empty = lf === pos || (lf === pos + 1 && message[pos] === CR)
    if (empty) {
      end = pos
      bodyStart = lf + 1
      break
    }
    pos = lf + 1
    end = pos
  }
  const head = Buffer.from(message.buffer, message.byteOffset, end).toString('latin1')
  const fields: Field[] = []
  for (const line of head.split(/(?<=\n)/)) {
    const first = line.charCodeAt(0)
    if ((first === SP || first === TAB) && fields.length > 0) {
      fields[fields.length - 1]!.raw += line
      continue
    }
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    fields.push({ name: line.slice(0, colon).replace(/[ \t]+$/, '').toLowerCase(), raw: line })
  }
  return { fields, bodyStart }
}

/**
 * A header field in relaxed canonical form (RFC 6376 3.4.2), CRLF-terminated: name lower case,
 * folding removed, WSP runs to one SP, no WSP around the colon or at the end.
 */
export function relaxedHeader(raw: string): string {
  const colon = raw.indexOf(':')
  const name = raw.slice(0, colon).replace(/[ \t]+$/, '').toLowerCase()
  const value = raw
    .slice(colon + 1)
    .replace(/\r?\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/^ | $/g, '')
  return `${name}:${value}\r\n`
}

/** The SHA-256 of the body from `start` in relaxed canonical form (RFC 6376 3.4.4), base64. */
export function relaxedBodyHash(message: Uint8Array, start: number): string {
  const hash = createHash('sha256')
  const n = message.length
  let scratch = new Uint8Array(256)
  /** Empty lines seen and not yet hashed: they count only if a non-empty line follows. */
  let pendingEmpty = 0
  /** Where the lines start that are canonical as they stand and not yet hashed. */
  let runStart = start
  let lineStart = start
  /** The line so far needs rewriting: a tab, two WSP in a row, or (found at its end) trailing WSP or a bare LF. */
  let dirty = false
  let previous = -1
  const flushRun = (to: number) => {
    if (to > runStart) hash.update(message.subarray(runStart, to))
  }
  const flushEmpty = () => {
    for (; pendingEmpty > 0; pendingEmpty--) hash.update(CRLF)
  }
  /** The line [from, to) (its line end excluded) rewritten; its length (0: empty once canonical). */
  const fixLine = (from: number, to: number): number => {
    if (scratch.length < to - from + 2) scratch = new Uint8Array((to - from + 2) * 2)
    let length = 0
    let space = false
    for (let i = from; i < to; i++) {
      const c = message[i]!
      if (c === SP || c === TAB) {
        space = true
        continue
      }
      if (space) scratch[length++] = SP
      space = false
      scratch[length++] = c
    }
    return length
  }
  /** A line that must be rewritten: what was canonical before it, the empty lines, then the line. */
  const emitFixed = (from: number, to: number, next: number) => {
    const length = fixLine(from, to)
    flushRun(from)
    if (length > 0) {
      flushEmpty()
      scratch[length] = CR
      scratch[length + 1] = LF
      hash.update(scratch.subarray(0, length + 2))
    } else pendingEmpty++
    runStart = next
  }

  for (let i = start; i < n; i++) {
    const c = message[i]!
    if (c === LF) {
      const crlf = i > lineStart && message[i - 1] === CR
      const contentEnd = crlf ? i - 1 : i
      const last = contentEnd > lineStart ? message[contentEnd - 1] : -1
      if (!crlf || last === SP || last === TAB) dirty = true
      if (dirty) emitFixed(lineStart, contentEnd, i + 1)
      else if (contentEnd === lineStart) {
        flushRun(lineStart)
        pendingEmpty++
        runStart = i + 1
      } else if (pendingEmpty > 0) {
        // The run is empty here (an empty line flushed it): the empty lines go first.
        flushEmpty()
      }
      lineStart = i + 1
      dirty = false
      previous = -1
      continue
    }
    if (c === TAB || (c === SP && previous === SP)) dirty = true
    previous = c
  }
  // A last line without a line end gets one, unless it is empty once canonical.
  if (lineStart < n) emitFixed(lineStart, n, n)
  else flushRun(n)
  return hash.digest('base64')
}

const privateKeys = new Map<string, KeyObject>()

/** The key object of a PEM, parsed once (a few keys per server; parsing an RSA key costs a sixth of a signature). */
function privateKeyOf(pem: string): KeyObject {
  let key = privateKeys.get(pem)
  if (!key) {
    if (privateKeys.size >= 256) privateKeys.clear()
    key = createPrivateKey(pem)
    privateKeys.set(pem, key)
  }
  return key
}

const asciiDomain = (domain: string) => (/^[\x21-\x7e]*$/.test(domain) ? domain : domainToASCII(domain) || domain)

/** One DKIM-Signature header, folded, CRLF-terminated. */
function signatureHeader(key: SigningKey, signed: readonly Field[], canonicalHeaders: string, bodyHash: string, t: number): string {
  // From must be signed (RFC 6376 5.4): over-signing names it even when absent.
  const names = [...signed.map((f) => f.name), ...OVERSIGNED]
  // Folded before signing: the signature covers the header as it is sent, b= empty.
  const head = fold(
    [`v=1;`, `a=${key.algorithm};`, `c=relaxed/relaxed;`, `d=${asciiDomain(key.domain)};`, `s=${key.selector};`, `t=${t};`],
    names,
    `bh=${bodyHash};`,
  )
  const unsigned = `DKIM-Signature: ${head}\r\n b=`
  const data = Buffer.from(canonicalHeaders + relaxedHeader(unsigned).slice(0, -2), 'latin1')
  const privateKey = privateKeyOf(key.privateKeyPem)
  const signature =
    key.algorithm === 'rsa-sha256'
      ? sign('sha256', data, privateKey)
      : // RFC 8463: Ed25519 signs the SHA-256 of the data.
        sign(null, createHash('sha256').update(data).digest(), privateKey)
  const b = signature.toString('base64')
  const lines: string[] = []
  for (let i = 0; i < b.length; i += 72) lines.push(b.slice(i, i + 72))
  return `${unsigned}${lines.join('\r\n ')}\r\n`
}

/** The tags before b=, folded under 78 columns: h= broken after a colon when it is long. */
function fold(tags: string[], names: string[], bodyHash: string): string {
  const lines: string[] = []
  let line = 'DKIM-Signature:'
  const add = (piece: string, separator: string) => {
    if (line.length + separator.length + piece.length > 76) {
      lines.push(line)
      line = ` ${piece}`
    } else line += separator + piece
  }
  for (const tag of tags) add(tag, ' ')
  names.forEach((name, i) => add(`${i === 0 ? 'h=' : ''}${name}${i === names.length - 1 ? ';' : ':'}`, i === 0 ? ' ' : ''))
  add(bodyHash, ' ')
  lines.push(line)
  return lines.join('\r\n').slice('DKIM-Signature: '.length)
}
