import libmime from 'libmime'
import addressparser from 'nodemailer/lib/addressparser'
import { checkAddress, type Address } from '../../lib/address.ts'
import { AppError } from '../../lib/errors.ts'
import { HEADER_FIELDS, fieldRule } from './header-fields.ts'
import { leaksOrigin } from './origin-headers.ts'
import { hasEightBit, malformed, sevenBitLine, utf8Of } from './header-encoding.ts'
import { HEAD_LIMIT, type Field, type FieldEdit, type Head } from './raw-message.ts'

/** Resent-From, Resent-Sender: the sender fields (HEADER_FIELDS) besides From and Sender, which have rules of their own. */
const RESENT_SENDERS = Object.keys(HEADER_FIELDS).filter((name) => HEADER_FIELDS[name] === 'sender' && name !== 'from' && name !== 'sender')

/** What a relayed message's header block says of its origin, and the edits it needs. */
export interface HeaderPlan {
  /** Every From address (RFC 5322 allows several authors); at least one. */
  from: Address[]
  /** The From value as it will be sent, 8-bit read as UTF-8. */
  fromValue: string
  sender?: Address
  /** Resent-From and Resent-Sender addresses. */
  resent: Address[]
  replyTo: string[]
  edits: FieldEdit[]
}

/** A refusal for the relay to answer with 550 5.7.1: the message claims an origin it may not. */
const notAllowed = (message: string) => new AppError(403, 'SENDER_NOT_ALLOWED', message)

/**
 * The header rules of the relay (docs/security.md), by the one table of HEADER_FIELDS: the
 * server's fields removed; the sender fields (From, Sender, Resent-From, Resent-Sender) parsed
 * strictly (their domains are checked by the caller); several From or Reply-To fields made one;
 * 8-bit fields encoded without SMTPUTF8; with `dropOrigin`, the fields that show the app's own
 * network (X-Originating-IP, a Received line through a private address) removed.
 */
export function planHeaders(head: Head, smtpUtf8: boolean, dropOrigin = false): HeaderPlan {
  if (!head.complete) throw malformed(`the header block is larger than ${HEAD_LIMIT / 1024} KiB`)
  if (head.strayLine !== undefined) throw malformed(`line ${head.strayLine} of the header block is not a header field ("Name: value")`)
  const edits: FieldEdit[] = []
  const kept: Kept[] = []
  for (const field of head.fields) {
    if (fieldRule(field.name) === 'server' || (dropOrigin && leaksOrigin(field))) edits.push({ field })
    else if (!hasEightBit(field)) kept.push({ field, text: field.value })
    else {
      const text = utf8Of(field)
      if (!smtpUtf8) edits.push({ field, line: sevenBitLine(field, text) })
      kept.push({ field, text })
    }
  }
  const named = (name: string) => kept.filter((k) => k.field.name === name)
  const fromValue = mergeInto(edits, named('from'), smtpUtf8)
  if (fromValue === undefined) throw new AppError(422, 'VALIDATION_ERROR', 'From: the message has no From header')
  const from = identities('From', fromValue)
  const senders = named('sender').flatMap((k) => identities(k.field.label, k.text))
  if (senders.length > 1) throw notAllowed('Sender: a message names at most one Sender')
  const sender = senders[0]
  if (from.length > 1 && (!sender || !from.some((a) => a.key === sender.key))) {
    throw notAllowed('From: a From with several addresses needs a Sender header naming one of them')
  }
  const resent = RESENT_SENDERS.flatMap(named).flatMap((k) => identities(k.field.label, k.text))
  const replyToValue = mergeInto(edits, named('reply-to'), smtpUtf8)
  const replyTo = replyToValue === undefined ? [] : addressesOf('Reply-To', replyToValue)
  return { from, fromValue, ...(sender && { sender }), resent, replyTo, edits }
}

/** A field kept, with its value as text (8-bit read as UTF-8). */
interface Kept {
  field: Field
  text: string
}

/**
 * Several fields of one name (From, Reply-To: RFC 5322 allows one) become one, at the first one's
 * place, their address lists joined. Answers the value as text.
 */
function mergeInto(edits: FieldEdit[], fields: Kept[], smtpUtf8: boolean): string | undefined {
  if (fields.length <= 1) return fields[0]?.text
  const first = fields[0]!.field
  const joined = { ...first, value: fields.map((k) => k.field.value).join(', ') }
  const text = fields.map((k) => k.text).join(', ')
  const line = hasEightBit(joined) && !smtpUtf8 ? sevenBitLine(joined, text) : fold(`${first.label}: ${joined.value}`)
  for (const { field } of fields) {
    const earlier = edits.findIndex((e) => e.field === field)
    if (earlier >= 0) edits.splice(earlier, 1)
    edits.push(field === first ? { field, line } : { field })
  }
  return text
}

/** A header line folded at spaces (only there: its 8-bit bytes stay whole) to lines of about 76. */
function fold(line: string): string {
  const lines: string[] = []
  let current = ''
  for (const word of line.split(' ')) {
    if (current && current.length + 1 + word.length > 76) {
      lines.push(current)
      current = word
    } else current = current ? `${current} ${word}` : word
  }
  return [...lines, current].join('\r\n ')
}

/** An address that appears in a display name, to be told from the mailbox's own address. */
const ADDRESS_IN_TEXT = /[^\s<>"(),;:@]+@[^\s<>"(),;:@]+\.[^\s<>"(),;:@]+/g

/**
 * The mailboxes of an identity field, each a valid address. Refused: a field that names none, an
 * entry without an address (an encoded word hiding one), empty angle brackets, and a display name
 * that shows another address than its own ("ok@yours.example" <them@elsewhere.example>), which
 * readers would take for the sender.
 */
function identities(label: string, value: string): Address[] {
  if (/<\s*>/.test(value)) throw notAllowed(`${label}: empty angle brackets (<>) make the address ambiguous`)
  const entries = addressparser(value, { flatten: true })
  if (entries.length === 0) throw notAllowed(`${label}: the header names no address`)
  return entries.map((entry) => {
    const address = checked(label, entry.address, entry.name)
    const name = entry.name.includes('=?') ? libmime.decodeWords(entry.name) : entry.name
    const shown = (name.match(ADDRESS_IN_TEXT) ?? []).find((other) => other.toLowerCase() !== entry.address.toLowerCase())
    if (shown) throw notAllowed(`${label}: the display name shows another address (${shown}) than the mailbox's own (${entry.address})`)
    return address
  })
}

function addressesOf(label: string, value: string): string[] {
  return addressparser(value, { flatten: true }).map((entry) => checked(label, entry.address, entry.name).address)
}

function checked(label: string, address: string, name: string): Address {
  if (!address) throw notAllowed(`${label}: "${name}" is not an address`)
  const result = checkAddress(address)
  if (!result.ok) throw notAllowed(`${label}: ${address} is not a valid address: ${result.reason}`)
  return result.value
}
