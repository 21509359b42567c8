import libmime from 'libmime'
import addressparser from 'nodemailer/lib/addressparser'
import type { Db } from '../../db/schema.ts'
import { invalid } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { requireAddress } from '../contacts/contact.ts'
import { headerValue, parseHeaders, prependHeaders, splitHead } from './raw-message.ts'
import { sendingDomain, uniqueRecipients, type PreparedEmail } from './send.ts'

export interface RelayedMessage {
  /** MAIL FROM. */
  envelopeFrom: string
  /** RCPT TO, in order: the recipients, Bcc included. */
  envelopeTo: string[]
  raw: Uint8Array
}

const addressesIn = (value: string | undefined) =>
  value === undefined ? [] : addressparser(value, { flatten: true }).flatMap((a) => (a.address ? [a.address] : []))

/**
 * A message an application handed to the SMTP relay, made ready for the queue: kept as written,
 * with only the headers it lacks added (Message-ID, Date). The envelope sender's domain and the
 * From header's domain must both be verified domains of the project.
 */
export async function prepareRelayed(db: Db, projectId: number, message: RelayedMessage, now: number): Promise<PreparedEmail> {
  const envelopeFrom = requireAddress(message.envelopeFrom, 'MAIL FROM')
  const envelopeDomain = await sendingDomain(db, projectId, envelopeFrom.address)
  const headers = parseHeaders(splitHead(message.raw).head)
  const value = (name: string) => headerValue(headers, name)
  const fromHeader = value('from')
  const from = addressesIn(fromHeader)
  if (from.length === 0) throw invalid('From', 'the message has no From header')
  const author = requireAddress(from[0]!, 'From')
  // Most messages are from the envelope sender's domain: it is looked up once.
  const domain = author.asciiDomain === envelopeFrom.asciiDomain ? envelopeDomain : await sendingDomain(db, projectId, author.address)
  const id = newId()
  const givenId = value('message-id')
  const messageId = givenId ?? `<${id}@${domain.name}>`
  const added = [
    ...(givenId === undefined ? [`Message-ID: ${messageId}`] : []),
    ...(value('date') === undefined ? [`Date: ${new Date(now).toUTCString().replace('GMT', '+0000')}`] : []),
  ]
  const to = addressesIn(value('to'))
  const cc = addressesIn(value('cc'))
  const shown = new Set([...to, ...cc].map((a) => a.toLowerCase()))
  const subject = value('subject')
  return {
    id,
    projectId,
    domainId: domain.id,
    from: decodeWords(fromHeader ?? from[0]!),
    recipients: {
      to,
      cc,
      bcc: message.envelopeTo.filter((a) => !shown.has(a.toLowerCase())),
      replyTo: addressesIn(value('reply-to')),
    },
    subject: subject === undefined ? '' : decodeWords(subject),
    html: null,
    text: null,
    messageId,
    // As sent, with only the headers it lacks added at the top: never rebuilt.
    mime: prependHeaders(message.raw, added),
    scheduledAt: null,
    envelope: uniqueRecipients(message.envelopeTo),
  }
}

/** Encoded words (RFC 2047) decoded; most values have none, and are answered as they are. */
const decodeWords = (value: string) => (value.includes('=?') ? libmime.decodeWords(value) : value)
