import type { Db } from '../../db/schema.ts'
import { AppError, invalid } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import { requireAddress } from '../../lib/address.ts'
import { findContactRowByKey, saveContact } from '../contacts/contacts.service.ts'
import { findSenderDomain } from '../domains/domain-queries.ts'
import { defaultSenderOf, isSandboxProject } from '../projects/project-queries.ts'
import { suppressionReason, type SuppressionReason } from '../suppressions/suppressions.service.ts'
import { render } from '../templates/render.ts'
import { findTemplate } from '../templates/templates.service.ts'
import { withBulkHeaders, withUnsubscribeFooter, type FeedbackSource, type MailStream } from '../tracking/bulk-mail.ts'
import type { LinkSettings } from '../tracking/links.ts'
import { bulkMarksOf, streamOf, trackedHtml } from './send-streams.ts'
import { checkSubject } from '../templates/subject.ts'
import { checkAttachments, checkHeaders, type Attachment } from './checks.ts'
import { addEmailEvent } from './email-events.ts'
import { insertDeliveries } from '../queue/index.ts'
import { insertEmail } from './emails.repository.ts'
import { threadOf } from './thread.ts'
import { returnPathHost } from '../domains/records.ts'
import { SANDBOX_HOST } from '../projects/sandbox-host.ts'
import { SANDBOX_TRACKING, type DomainTracking } from '../tracking/policy.ts'
import { buildMessage, type Mailbox, type MessageParts } from './message.ts'

/** One email to send, whichever API it came from. */
export interface SendRequest {
  /** Absent: the project's default sender. */
  from?: Mailbox
  /** The sender's display name, for the default sender too. */
  fromName?: string
  to: Mailbox[]
  cc?: string[]
  bcc?: string[]
  replyTo?: string[]
  subject?: string
  html?: string
  text?: string
  templateId?: string
  /** Values for {{placeholders}}. */
  variables?: Record<string, unknown>
  headers?: Record<string, unknown>
  attachments?: Attachment[]
  scheduledAt?: number
  /** Plunk's form: the (single) recipient is upserted as a contact. */
  contact?: { subscribed?: boolean; data?: Record<string, unknown> }
  /** The contact the email goes to, when the sender knows it (a workflow's run). */
  contactId?: string
  /** The email's id, when the body must already name it (a campaign's test send links to its own unsubscribe page). */
  id?: string
  /** One of the project's emails this one answers: In-Reply-To and References thread it under that one. */
  inReplyToId?: string
  /** Absent: marketing with a MARKETING template, else transactional (streamOf). */
  stream?: MailStream
  /** Feedback-ID of marketing mail; absent: the template's, sent through the API. */
  feedback?: FeedbackSource
  /** Absent: the domain's default for the stream. */
  trackOpens?: boolean
  trackClicks?: boolean
}

export const MAX_RECIPIENTS = 50

export interface PreparedEmail {
  id: string
  projectId: number
  domainId: number | null
  /** Queued by a sandbox project: simulated at the delivery step. */
  sandbox: boolean
  from: string
  recipients: { to: string[]; cc: string[]; bcc: string[]; replyTo: string[] }
  subject: string
  html: string | null
  text: string | null
  messageId: string
  mime: Uint8Array
  scheduledAt: number | null
  /** Every envelope recipient, once each. */
  envelope: Array<{ address: string; key: string; domain: string }>
  contact?: { email: string; subscribed?: boolean; data?: Record<string, unknown> }
  contactId?: string
}

const formatMailbox = (m: Mailbox) => (m.name ? `"${m.name.replace(/["\\]/g, '')}" <${m.address}>` : m.address)

/**
 * Everything a send needs, read and built before the write transaction: the sender's verified
 * domain, the template rendered, the message built once. Nothing is written here.
 */
export async function prepareEmail(
  db: Db,
  projectId: number,
  request: SendRequest,
  now: number,
  build: (parts: MessageParts) => Promise<Uint8Array> = buildMessage,
  /** Absent: no open or click tracking, whatever the domain says. */
  links?: LinkSettings,
): Promise<PreparedEmail> {
  const from = await senderOf(db, projectId, request.from, request.fromName)
  const to = request.to.map((m, i) => ({ ...m, address: requireAddress(m.address, `to[${i}]`).address }))
  const cc = (request.cc ?? []).map((a, i) => requireAddress(a, `cc[${i}]`).address)
  const bcc = (request.bcc ?? []).map((a, i) => requireAddress(a, `bcc[${i}]`).address)
  const replyTo = (request.replyTo ?? []).map((a, i) => requireAddress(a, `replyTo[${i}]`).address)
  const envelope = uniqueRecipients([...to.map((m) => m.address), ...cc, ...bcc])
  if (envelope.length === 0) throw invalid('to', 'needs at least one recipient')
  if (envelope.length > MAX_RECIPIENTS) throw invalid('to', `at most ${MAX_RECIPIENTS} recipients in all (to, cc and bcc)`)
  const headers = checkHeaders(request.headers ?? {})
  const attachments = checkAttachments(request.attachments ?? [])
  if (request.scheduledAt !== undefined && request.scheduledAt < now - 60_000) throw invalid('scheduledAt', 'must not be in the past')
  const domain = await senderDomain(db, projectId, from.address)
  const template = await templateOf(db, projectId, request.templateId)
  const stream = streamOf(request, template)
  const thread = request.inReplyToId === undefined ? undefined : await threadOf(db, projectId, request.inReplyToId)
  const id = request.id ?? newId()
  const messageId = `<${id}@${domain.name}>`
  const bulk = bulkMarksOf({ emailId: id, projectId, stream, feedback: request.feedback, template }, domain, links)
  const content = await contentOf(db, projectId, request, template, to[0]!.address, bulk?.unsubscribe.url)
  const html = trackedHtml(content.html, { emailId: id, stream, asked: request, bulk }, domain, links)
  const allHeaders = bulk ? withBulkHeaders(headers, bulk.headers) : headers
  const mime = await build({ from, to, cc, bcc, replyTo, ...content, html, headers: allHeaders, attachments, messageId, ...thread, date: new Date(now) })
  return {
    id,
    projectId,
    domainId: domain.id,
    sandbox: domain.sandbox,
    from: formatMailbox(from),
    recipients: { to: to.map(formatMailbox), cc, bcc, replyTo },
    subject: content.subject,
    // As given: what the API shows, not the tracked copy in the message.
    html: content.html ?? null,
    text: content.text ?? null,
    messageId,
    mime,
    scheduledAt: request.scheduledAt ?? null,
    envelope,
    ...(request.contact && { contact: { email: to[0]!.address, ...request.contact } }),
    ...(request.contactId && { contactId: request.contactId }),
  }
}

async function senderOf(db: Db, projectId: number, from: Mailbox | undefined, name: string | undefined): Promise<Mailbox> {
  if (from) return { ...from, ...(name && { name }), address: requireAddress(from.address, 'from').address }
  const defaultSender = await defaultSenderOf(db, projectId)
  if (!defaultSender) {
    throw invalid('from', 'is required: this project has no default sender (mailstead project set-sender ID ADDRESS)')
  }
  return { address: defaultSender, ...(name && { name }) }
}

/** What a sender's domain gives a send: the domain row's id (null in a sandbox), its names and tracking switches. */
export interface SenderDomain extends DomainTracking {
  id: number | null
  name: string
  /** The host of its return paths and of its unsubscribe mailto: the sandbox's own for a sandbox's mail. */
  mailDomain: string
  /** The project is a sandbox: its mail is simulated at the delivery step. */
  sandbox: boolean
}

/**
 * The domain a send from this address goes out under. A sandbox project sends from any address:
 * its mail never leaves the server, so it needs no domain of its own; it tracks as a domain of
 * that name says, else as SANDBOX_TRACKING does. Otherwise the project's SUCCESS domain, as
 * sendingDomain requires.
 */
export async function senderDomain(db: Db, projectId: number, fromAddress: string): Promise<SenderDomain> {
  const name = requireAddress(fromAddress, 'from').asciiDomain
  if (await isSandboxProject(db, projectId)) {
    const domain = await findSenderDomain(db, projectId, name)
    const tracking = domain ?? SANDBOX_TRACKING
    return {
      id: null,
      name,
      mailDomain: SANDBOX_HOST,
      open_tracking: tracking.open_tracking,
      click_tracking: tracking.click_tracking,
      transactional_open_tracking: tracking.transactional_open_tracking,
      transactional_click_tracking: tracking.transactional_click_tracking,
      sandbox: true,
    }
  }
  const domain = await sendingDomain(db, projectId, fromAddress)
  return { ...domain, mailDomain: returnPathHost(domain), sandbox: false }
}

/** The project's SUCCESS domain of an address; a 403 naming the domain and its status otherwise. */
export async function sendingDomain(db: Db, projectId: number, fromAddress: string) {
  const name = requireAddress(fromAddress, 'from').asciiDomain
  const domain = await findSenderDomain(db, projectId, name)
  if (domain?.status === 'SUCCESS') return domain
  throw new AppError(403, 'DOMAIN_NOT_VERIFIED', `The sender domain ${name} is not a verified domain of this project`, {
    suggestion: domain
      ? `The domain ${name} is ${domain.status}: publish its DNS records and verify it (PUT /api/v1/domains/${domain.id}/verify).`
      : `Add ${name} as a sending domain (POST /api/v1/domains), publish its DNS records and verify it.`,
  })
}

/** The project's SUCCESS domain of this name, whether or not the project is a sandbox. */
export async function verifiedDomain(db: Db, projectId: number, name: string) {
  const domain = await findSenderDomain(db, projectId, name)
  return domain?.status === 'SUCCESS' ? domain : undefined
}


type Template = Awaited<ReturnType<typeof findTemplate>>

async function templateOf(db: Db, projectId: number, templateId: string | undefined): Promise<Template | undefined> {
  const template = templateId ? await findTemplate(db, projectId, templateId).catch(() => undefined) : undefined
  if (templateId && !template) throw invalid('template', 'no template with this id in this project')
  return template
}

/**
 * Subject and bodies: the request's, else the template's; placeholders filled when there are
 * values. Marketing mail (`unsubscribeUrl` given) fills {{unsubscribeUrl}} and gets the footer.
 */
async function contentOf(db: Db, projectId: number, request: SendRequest, template: Template | undefined, firstRecipient: string, unsubscribeUrl?: string) {
  const subject = checkSubject(request.subject ?? template?.subject ?? '')
  const html = request.html ?? template?.body
  const text = request.text
  if (html === undefined && text === undefined) throw invalid('body', 'give html, text or a template')
  // Plunk fills every body from the contact; useSend only templates and bodies given variables.
  if (!template && !request.variables && !request.contact && unsubscribeUrl === undefined) return { subject, html, text }
  const values = { ...(await templateValues(db, projectId, firstRecipient, request)), ...(unsubscribeUrl && { unsubscribeUrl }) }
  const rendered = {
    html: html === undefined ? undefined : render(html, values, { html: true }),
    text: text === undefined ? undefined : render(text, values, { html: false }),
  }
  return { subject: render(subject, values, { html: false }), ...(unsubscribeUrl ? withUnsubscribeFooter(rendered, { html, text }, unsubscribeUrl) : rendered) }
}

/** What placeholders may name: the request's values first, then the contact's data. */
async function templateValues(db: Db, projectId: number, email: string, request: SendRequest): Promise<Record<string, unknown>> {
  const contact = await findContactRowByKey(db, projectId, requireAddress(email).key)
  const data = { ...(contact ? JSON.parse(contact.data) : {}), ...request.contact?.data }
  return { ...data, ...request.variables, email, data }
}

export function uniqueRecipients(addresses: string[]) {
  const seen = new Map<string, { address: string; key: string; domain: string }>()
  for (const address of addresses) {
    const checked = requireAddress(address)
    if (!seen.has(checked.key)) seen.set(checked.key, { address, key: checked.key, domain: checked.asciiDomain })
  }
  return [...seen.values()]
}

export interface SendSettings {
  /** How long a delivery may be retried before it bounces as expired. */
  maxAgeMs: number
}

/**
 * Writes a prepared email in the caller's transaction: the contact (Plunk's form), the email, one
 * delivery per recipient (suppressed ones are recorded, not sent) and its first events.
 */
export async function enqueueEmail(db: Db, email: PreparedEmail, settings: SendSettings, now: number) {
  const contact = email.contact
    ? (await saveContact(db, email.projectId, { email: email.contact.email, subscribed: email.contact.subscribed, data: email.contact.data }, now, false)).contact
    : undefined
  const suppressed = new Map<string, SuppressionReason>()
  for (const recipient of email.envelope) {
    const reason = await suppressionReason(db, email.projectId, recipient.key)
    if (reason) suppressed.set(recipient.key, reason)
  }
  const startAt = email.scheduledAt ?? now
  const firstStatus = email.scheduledAt !== null ? 'SCHEDULED' : 'QUEUED'
  await insertEmail(db, {
    id: email.id,
    project_id: email.projectId,
    domain_id: email.domainId,
    contact_id: contact?.id ?? email.contactId ?? null,
    from_address: email.from,
    recipients: JSON.stringify(email.recipients),
    subject: email.subject,
    message_id: email.messageId,
    dkim_header: null,
    status: firstStatus,
    scheduled_at: email.scheduledAt,
    created_at: now,
    updated_at: now,
  }, { email_id: email.id, html: email.html, text: email.text, mime: email.mime })
  await insertDeliveries(
    db,
    email.envelope.map((r) => ({
      email_id: email.id,
      project_id: email.projectId,
      recipient: r.address,
      recipient_domain: r.domain,
      sandbox: email.sandbox ? 1 : 0,
      state: suppressed.has(r.key) ? 'suppressed' : email.scheduledAt !== null ? 'scheduled' : 'queued',
      next_attempt_at: startAt,
      expires_at: startAt + settings.maxAgeMs,
      created_at: now,
      updated_at: now,
    })),
  )
  if (suppressed.size < email.envelope.length) await addEmailEvent(db, email.id, firstStatus, null, now)
  for (const r of email.envelope.filter((r) => suppressed.has(r.key))) {
    await addEmailEvent(db, email.id, 'SUPPRESSED', { recipient: r.address, reason: suppressed.get(r.key) }, now)
  }
  return { emailId: email.id, contact: contact && { id: contact.id, email: contact.email } }
}
