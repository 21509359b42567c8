import libmime from 'libmime'
import { domainToASCII } from 'node:url'
import addressparser from 'nodemailer/lib/addressparser'
import { AppError } from '../../lib/errors.ts'
import type { Field } from './raw-message.ts'

/** Fields whose value is a list of addresses: display names can be encoded, addresses cannot. */
const ADDRESS_FIELDS = new Set(['from', 'sender', 'reply-to', 'to', 'cc', 'bcc', 'resent-from', 'resent-sender', 'resent-to', 'resent-cc', 'resent-bcc', 'disposition-notification-to'])

/** Structured fields other than addresses: RFC 2047 words are not allowed in them. */
const STRUCTURED_FIELDS = new Set([
  'date', 'message-id', 'in-reply-to', 'references', 'received', 'return-path', 'mime-version', 'content-type', 'content-disposition',
  'content-transfer-encoding', 'content-id', 'resent-date', 'resent-message-id', 'dkim-signature', 'list-unsubscribe', 'list-unsubscribe-post',
  'list-id', 'list-help', 'list-post', 'list-subscribe', 'list-owner', 'list-archive', 'authentication-results', 'received-spf',
])

const EIGHT_BIT = /[\x80-\xff]/
const NON_ASCII = /[^\x00-\x7f]/
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** A refusal for the relay to answer with 554 5.6.x: what is wrong with the message itself. */
export const malformed = (message: string, code: 'MESSAGE_MALFORMED' | 'SMTPUTF8_REQUIRED' = 'MESSAGE_MALFORMED') => new AppError(422, code, message)

export const hasEightBit = (field: Field) => EIGHT_BIT.test(field.value)

/** A field's 8-bit value as UTF-8; a refusal when it is not UTF-8 (an unnamed legacy charset). */
export function utf8Of(field: Field): string {
  try {
    return strictUtf8.decode(Buffer.from(field.value, 'latin1'))
  } catch {
    throw malformed(`the ${field.label} header has 8-bit bytes that are not UTF-8: encode it (RFC 2047)`)
  }
}

/**
 * A field with 8-bit (UTF-8) bytes, written in 7 bits for a message sent without SMTPUTF8: text as
 * RFC 2047 encoded words, display names the same way, IDN domains in punycode. What cannot be
 * written so (a non-ASCII local part, 8-bit in a structured field) is refused.
 */
export function sevenBitLine(field: Field, value: string): string {
  if (STRUCTURED_FIELDS.has(field.name)) {
    throw malformed(`the ${field.label} header has non-ASCII characters, which it cannot have without SMTPUTF8`, 'SMTPUTF8_REQUIRED')
  }
  const encoded = ADDRESS_FIELDS.has(field.name) ? addressList(field, value) : libmime.encodeWords(value, 'Q', 52)
  return libmime.foldLines(`${field.label}: ${encoded}`, 76)
}

type Parsed = { name: string; address?: string; group?: Parsed[] }

function addressList(field: Field, value: string): string {
  const mailbox = (entry: Parsed): string => {
    const at = (entry.address ?? '').lastIndexOf('@')
    const local = entry.address!.slice(0, at)
    if (NON_ASCII.test(local)) throw malformed(`the address ${entry.address} in the ${field.label} header needs SMTPUTF8 (MAIL FROM:<...> SMTPUTF8)`, 'SMTPUTF8_REQUIRED')
    const address = at > 0 ? `${local}@${domainToASCII(entry.address!.slice(at + 1)) || entry.address!.slice(at + 1)}` : entry.address!
    return entry.name ? `${phrase(entry.name)} <${address}>` : address
  }
  const entries = addressparser(value) as Parsed[]
  return entries.map((entry) => (entry.group ? `${phrase(entry.name)}: ${entry.group.map(mailbox).join(', ')};` : mailbox(entry))).join(', ')
}

/** A display name: an encoded word when it is not ASCII, else quoted when it has specials. */
const phrase = (name: string) =>
  NON_ASCII.test(name) ? libmime.encodeWord(name, 'Q', 52) : /^[\w !#$%&'*+/=?^`{|}~.-]*$/.test(name) ? name : `"${name.replace(/(["\\])/g, '\\$1')}"`
