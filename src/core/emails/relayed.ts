import libmime from 'libmime'
import addressparser from 'nodemailer/lib/addressparser'
import type { Db } from '../../db/schema.ts'
import { newId } from '../../lib/ids.ts'
import { requireAddress } from '../../lib/address.ts'
import { malformed } from './header-encoding.ts'
import { lineProblem } from './message-lines.ts'
import { headerValue, readHead, rewriteHead } from './raw-message.ts'
import { planHeaders } from './relay-headers.ts'
import { TRACK_FIELD, trackingAskedBy, trackRelayedHtml } from './relay-tracking.ts'
import { senderDomain, uniqueRecipients, type PreparedEmail } from './send.ts'
import { trackHtml, type LinkSettings } from '../tracking/links.ts'
import { trackingFor, type DomainTracking, type TrackingAsked } from '../tracking/policy.ts'

export interface RelayedMessage {
  /** MAIL FROM. */
  envelopeFrom: string
  /** RCPT TO, in order: the recipients, Bcc included. */
  envelopeTo: string[]
  /** MAIL FROM carried SMTPUTF8: 8-bit (UTF-8) headers may go out as they are. */
  smtpUtf8?: boolean
  /** Remove the fields that show the app's own network (MAILSTEAD_RELAY_DROP_ORIGIN_HEADERS). */
  dropOriginHeaders?: boolean
  raw: Uint8Array
}

const addressesIn = (value: string | undefined) =>
  value === undefined ? [] : addressparser(value, { flatten: true }).flatMap((a) => (a.address ? [a.address] : []))

/**
 * A message an application handed to the SMTP relay, made ready for the queue: kept as written but
 * for what the relay's rules take out or rewrite (planHeaders), with the headers it lacks added
 * (Message-ID, Date). The envelope sender's domain, and that of every From, Sender and Resent-
 * address, must be verified domains of the project.
 */
export async function prepareRelayed(db: Db, projectId: number, message: RelayedMessage, now: number, links?: LinkSettings): Promise<PreparedEmail> {
  const envelopeFrom = requireAddress(message.envelopeFrom, 'MAIL FROM')
  const envelopeDomain = await senderDomain(db, projectId, envelopeFrom.address)
  const problem = lineProblem(message.raw)
  if (problem) throw malformed(`The message cannot be sent as it is: ${problem}`)
  const head = readHead(message.raw)
  const plan = planHeaders(head, message.smtpUtf8 ?? false, message.dropOriginHeaders ?? false)
  const author = plan.from[0]!
  // Most messages are from the envelope sender's domain: it is looked up once.
  const domain = author.asciiDomain === envelopeFrom.asciiDomain ? envelopeDomain : await senderDomain(db, projectId, author.address)
  const verified = new Set([domain.name, envelopeDomain.name])
  for (const address of [...plan.from, ...(plan.sender ? [plan.sender] : []), ...plan.resent]) {
    if (verified.has(address.asciiDomain)) continue
    await senderDomain(db, projectId, address.address)
    verified.add(address.asciiDomain)
  }
  const value = (name: string) => headerValue(head.fields, name)
  const asked = trackingAskedBy(value(TRACK_FIELD))
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
    sandbox: domain.sandbox,
    from: decodeWords(plan.fromValue),
    recipients: { to, cc, bcc: message.envelopeTo.filter((a) => !shown.has(a.toLowerCase())), replyTo: plan.replyTo },
    subject: subject === undefined ? '' : decodeWords(subject),
    html: null,
    text: null,
    messageId,
    // As sent, with only the headers it lacks added at the top and the fields the rules edit: never rebuilt.
    mime: await tracked(rewriteHead(message.raw, added, plan.edits), { emailId: id, domain, asked, links }),
    scheduledAt: null,
    envelope: uniqueRecipients(message.envelopeTo),
  }
}

/** Encoded words (RFC 2047) decoded; most values have none, and are answered as they are. */
const decodeWords = (value: string) => (value.includes('=?') ? libmime.decodeWords(value) : value)

/**
 * A relayed message tracked as its X-Mailstead-Track asks, else as its domain tracks transactional
 * mail; as written when neither asks for anything (and always without link settings).
 */
async function tracked(mime: Uint8Array, options: { emailId: string; domain: DomainTracking; asked: TrackingAsked; links?: LinkSettings }): Promise<Uint8Array> {
  const tracking = trackingFor(options.domain, 'transactional', options.asked)
  if (!options.links || (!tracking.opens && !tracking.clicks)) return mime
  const links = options.links
  return trackRelayedHtml(mime, (html) => trackHtml(html, { ...links, emailId: options.emailId, ...trackingFor(options.domain, 'transactional', options.asked, html) }))
}
