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
  await sendingDomain(db, projectId, requireAddress(message.envelopeFrom, 'MAIL FROM').address)
  const headers = parseHeaders(splitHead(message.raw).head)
  const from = addressesIn(headerValue(headers, 'from'))
  if (from.length === 0) throw invalid('From', 'the message has no From header')
  const domain = await sendingDomain(db, projectId, requireAddress(from[0]!, 'From').address)
  const id = newId()
  const messageId = headerValue(headers, 'message-id') ?? `<${id}@${domain.name}>`
  const added = [
    ...(headerValue(headers, 'message-id') === undefined ? [`Message-ID: ${messageId}`] : []),
    ...(headerValue(headers, 'date') === undefined ? [`Date: ${new Date(now).toUTCString().replace('GMT', '+0000')}`] : []),
  ]
  const to = addressesIn(headerValue(headers, 'to'))
  const cc = addressesIn(headerValue(headers, 'cc'))
  const shown = new Set([...to, ...cc].map((a) => a.toLowerCase()))
  return {
    id,
    projectId,
    domainId: domain.id,
    from: libmime.decodeWords(headerValue(headers, 'from') ?? from[0]!),
    recipients: {
      to,
      cc,
      bcc: message.envelopeTo.filter((a) => !shown.has(a.toLowerCase())),
      replyTo: addressesIn(headerValue(headers, 'reply-to')),
    },
    subject: libmime.decodeWords(headerValue(headers, 'subject') ?? ''),
    html: null,
    text: null,
    messageId,
    mime: prependHeaders(message.raw, added),
    scheduledAt: null,
    envelope: uniqueRecipients(message.envelopeTo),
  }
}
