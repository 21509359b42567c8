import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import { signToken, verifyToken } from '../../lib/signed.ts'
import { enqueueEmail, mailboxOf, prepareEmail, type MessageParts, type PreparedEmail, type SendSettings } from '../emails/index.ts'
import { checkAddress } from '../../lib/address.ts'
import { contactsByIds } from '../contacts/index.ts'
import { findContactRow } from '../contacts/contacts.service.ts'
import { AppError, conflict } from '../../lib/errors.ts'
import { contactsWritten } from '../reactions.ts'
import type { LinkSettings } from '../tracking/links.ts'
import * as optIns from './opt-ins.repository.ts'
import * as repo from './segments.repository.ts'

const PURPOSE = 'book-opt-in'

/** How long a confirmation link works. */
export const OPT_IN_LINK_MS = 7 * 24 * 3600_000

/** What sending a confirmation needs: the links' base and key, the message builder, the queue's settings. */
export interface OptInMail {
  links: LinkSettings
  build: (parts: MessageParts) => Promise<Uint8Array>
  sendSettings: SendSettings
}

/**
 * How a contact came to a book, and the client that sent it there: an app through the API, a
 * person through a sign-up form (`form` names it) or through their preference page. Kept with the
 * contact's consent.
 */
export interface ConsentSource {
  method: 'api' | 'form' | 'preferences'
  ip: string | null
  userAgent: string | null
  /** The form's title, when a form. */
  form?: string
}

/** The book's double opt-in, as the request needs it. */
export interface OptInBook {
  id: string
  name: string
  from: string | null
  subject: string
  content: string
}

/** The request's id (a UUID without dashes), signed: what the confirmation link carries. */
export const optInToken = (secret: string, id: string) => signToken(secret, PURPOSE, id.replaceAll('-', ''))

function idOfToken(secret: string, token: string): string | undefined {
  if (token.length > 200) return undefined
  const hex = verifyToken(secret, PURPOSE, token.toLowerCase())
  const uuid = hex === undefined ? null : /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(hex)
  return uuid ? uuid.slice(1).join('-') : undefined
}

/**
 * Asks contacts to confirm their place in the book: each that is neither listed nor already asked
 * within the link's life (unless asked `again`) gets a request and a confirmation email, queued in the caller's
 * transaction (transactional mail, without tracking, so the link stays as it is). The request
 * keeps the subject it was sent under: the consent names it.
 */
export async function requestOptIns(
  db: Db,
  projectId: number,
  book: OptInBook,
  contacts: ReadonlyArray<{ id: string; email: string }>,
  source: ConsentSource,
  mail: OptInMail,
  now: number,
  options: { again?: boolean; prepared?: PreparedOptIns } = {},
) {
  const unique = [...new Map(contacts.map((c) => [c.id, c])).values()]
  const ids = unique.map((c) => c.id)
  const listed = new Set(await repo.listedAmong(db, book.id, ids))
  const asked = options.again ? new Set<string>() : await optIns.waitingSince(db, book.id, ids, now - OPT_IN_LINK_MS)
  for (const contact of unique.filter((c) => !listed.has(c.id) && !asked.has(c.id))) {
    const ready = options.prepared?.take(book, contact.email)
    const { id, email } = ready ?? (await confirmationOf(db, projectId, book, contact.email, mail, now))
    await enqueueEmail(db, { ...email, contactId: contact.id }, mail.sendSettings, now)
    const agreedTo = { subject: email.subject, via: source.method, ...(source.form !== undefined && { form: source.form }) }
    await optIns.insertOptIn(db, { id, project_id: projectId, segment_id: book.id, contact_id: contact.id, email_id: email.id, requested_at: now, agreed_to: JSON.stringify(agreedTo) })
  }
}

/**
 * Keeps the consent of contacts listed in a book at once (no double opt-in): when, how, the
 * client that sent them and what they agreed to (the book, and the form when one).
 */
export async function recordConsents(db: Db, projectId: number, book: { id: string; name: string }, contactIds: readonly string[], source: ConsentSource, now: number) {
  const agreedTo = JSON.stringify({ book: book.name, subject: null, via: source.method, ...(source.form !== undefined && { form: source.form }) })
  for (const contactId of contactIds) {
    await optIns.insertOptIn(db, {
      id: newId(),
      project_id: projectId,
      segment_id: book.id,
      contact_id: contactId,
      email_id: null,
      requested_at: now,
      confirmed_at: now,
      method: source.method,
      client_ip: source.ip,
      user_agent: source.userAgent,
      agreed_to: agreedTo,
    })
  }
}

/** A request's id and its confirmation email, built: the link in it carries the id. */
interface Confirmation {
  id: string
  email: PreparedEmail
}

async function confirmationOf(db: Db, projectId: number, book: OptInBook, address: string, mail: OptInMail, now: number): Promise<Confirmation> {
  const id = newId()
  const url = `${mail.links.baseUrl}/confirm/${optInToken(mail.links.secret, id)}`
  const email = await prepareEmail(
    db,
    projectId,
    {
      ...(book.from && { from: mailboxOf(book.from, 'doubleOptInFrom') }),
      to: [{ address }],
      subject: book.subject,
      html: book.content,
      variables: { doubleOptInUrl: url },
      stream: 'transactional',
    },
    now,
    mail.build,
  )
  return { id, email }
}

/** Confirmations built ahead, by address; each is taken once, and only for the book settings it was built with. */
export interface PreparedOptIns {
  take(book: OptInBook, address: string): Confirmation | undefined
}

const NONE_PREPARED: PreparedOptIns = { take: () => undefined }
const settingsOf = (book: OptInBook) => JSON.stringify([book.id, book.from, book.subject, book.content])
const keyOf = (address: string) => {
  const checked = checkAddress(address)
  return checked.ok ? checked.value.key : undefined
}

/**
 * Builds the confirmations that adding `addresses` to the book may send, before the write
 * transaction (a bulk add of 1,000 builds 1,000 messages, which would hold the writer): the
 * transaction then only queues those it needs, and builds one itself only if the book's settings
 * changed in between. Addresses that are not addresses are left to the transaction to refuse.
 */
export async function prepareOptIns(db: Db, projectId: number, book: OptInBook, addresses: readonly string[], mail: OptInMail, now: number): Promise<PreparedOptIns> {
  const ready = new Map<string, Confirmation>()
  for (const address of addresses) {
    const key = keyOf(address)
    if (key === undefined || ready.has(key)) continue
    ready.set(key, await confirmationOf(db, projectId, book, address, mail, now))
  }
  if (ready.size === 0) return NONE_PREPARED
  const settings = settingsOf(book)
  return {
    take(asked, address) {
      const key = keyOf(address)
      const found = key === undefined || settingsOf(asked) !== settings ? undefined : ready.get(key)
      if (key !== undefined) ready.delete(key)
      return found
    },
  }
}

/** Where a confirmation link stands. */
export type OptInState =
  | { kind: 'invalid' }
  | { kind: 'expired'; book: string; projectId: number }
  | { kind: 'confirmed'; book: string; address: string; projectId: number }
  | { kind: 'waiting'; book: string; address: string; projectId: number; row: optIns.OptInRow }

/** What the link `token` is: forged or of a deleted book (invalid), too old, used, or waiting. */
export async function optInState(db: Db, secret: string, token: string, now: number): Promise<OptInState> {
  const id = idOfToken(secret, token)
  const row = id === undefined ? undefined : await optIns.findOptIn(db, id)
  const segment = row && (await repo.findSegment(db, row.project_id, row.segment_id))
  const address = row && (await findContactRow(db, row.project_id, row.contact_id))?.email
  if (!row || !segment || address === undefined) return { kind: 'invalid' }
  const projectId = row.project_id
  if (row.confirmed_at !== null) return { kind: 'confirmed', book: segment.name, address, projectId }
  if (row.requested_at + OPT_IN_LINK_MS <= now) return { kind: 'expired', book: segment.name, projectId }
  return { kind: 'waiting', book: segment.name, address, projectId, row }
}

/** Who followed the link, as the request showed it. */
export interface ConsentClient {
  ip: string | null
  userAgent: string | null
}

/**
 * Confirms: the contact is listed in the book, and the consent kept (when, how, the client, and
 * the book's name and the subject it agreed to). A link used, expired or forged changes nothing.
 */
export async function confirmOptIn(db: Db, secret: string, token: string, client: ConsentClient, now: number): Promise<OptInState> {
  const state = await optInState(db, secret, token, now)
  if (state.kind !== 'waiting') return state
  const { row } = state
  const asked = JSON.parse(row.agreed_to ?? '{}')
  const agreedTo = JSON.stringify({ book: state.book, subject: asked.subject ?? null, via: asked.via ?? 'api', ...(asked.form !== undefined && { form: asked.form }) })
  const confirmed = await optIns.confirmOptIn(db, row.id, { at: now, method: 'confirmation', clientIp: client.ip, userAgent: client.userAgent, agreedTo })
  if (!confirmed) return { kind: 'confirmed', book: state.book, address: state.address, projectId: state.projectId }
  await repo.addMembers(db, row.segment_id, [row.contact_id], now)
  await contactsWritten(db, row.project_id, { touched: [row.contact_id] }, now)
  return { kind: 'confirmed', book: state.book, address: state.address, projectId: state.projectId }
}

/** What a contact agreed to when it confirmed its place in a book, as the API shows it. */
export interface Consent {
  confirmedAt: string
  method: string
  clientIp: string | null
  userAgent: string | null
  /** The book, the confirmation's subject (null without one), how the contact came (api or form), and the form's title when a form. */
  agreedTo: { book: string; subject: string | null; via?: string; form?: string }
}

/** The contact's latest consent to the book; null when it never confirmed one (added without double opt-in, say). */
export async function consentOf(db: Db, segmentId: string, contactId: string): Promise<Consent | null> {
  const row = await optIns.latestConsent(db, segmentId, contactId)
  if (!row) return null
  return {
    confirmedAt: isoTime(row.confirmed_at!),
    method: row.method ?? 'confirmation',
    clientIp: row.client_ip,
    userAgent: row.user_agent,
    agreedTo: JSON.parse(row.agreed_to ?? '{}'),
  }
}

/** A contact of the book still waiting to confirm; `expired` once its link no longer works (adding it again, or re-sending, sends a new one). */
export interface PendingContact {
  contactId: string
  email: string
  requestedAt: string
  expiresAt: string
  expired: boolean
  /** The confirmation email, in the email log. */
  emailId: string | null
}

/** A page of the book's pending contacts, newest request first, with how many there are. */
export async function pendingContacts(db: Db, projectId: number, bookId: string, page: number, limit: number, now: number) {
  const rows = await optIns.pendingPage(db, bookId, limit, (page - 1) * limit)
  const emails = new Map((await contactsByIds(db, projectId, rows.map((row) => row.contact_id))).map((c) => [c.id, c.email]))
  const data: PendingContact[] = rows.map((row) => ({
    contactId: row.contact_id,
    email: emails.get(row.contact_id) ?? '',
    requestedAt: isoTime(row.requested_at),
    expiresAt: isoTime(row.requested_at + OPT_IN_LINK_MS),
    expired: row.requested_at + OPT_IN_LINK_MS <= now,
    emailId: row.email_id,
  }))
  return { data, total: await optIns.pendingCount(db, bookId) }
}

/** How soon a confirmation may be sent again to one contact. */
export const RESEND_AFTER_MS = 60_000

/**
 * Sends the contact a new confirmation link (the old one keeps working until it expires): only
 * to a contact waiting for this book, at most once a minute, and while the book asks for it.
 */
export async function resendOptIn(db: Db, projectId: number, book: OptInBook & { enabled: boolean }, contactId: string, mail: OptInMail, now: number) {
  const latest = await optIns.latestRequest(db, book.id, contactId)
  const contact = await findContactRow(db, projectId, contactId)
  if (!latest || !contact) throw new AppError(404, 'NOT_FOUND', 'This contact has no confirmation to send again for this book')
  if ((await repo.listedAmong(db, book.id, [contactId])).length > 0 || latest.confirmed_at !== null) throw conflict('This contact is already in the book')
  if (!book.enabled) throw conflict("This book's double opt-in is off", 'Add the contact again: it is listed at once.')
  const wait = latest.requested_at + RESEND_AFTER_MS - now
  if (wait > 0) {
    throw new AppError(429, 'RATE_LIMITED', 'A confirmation was sent to this contact less than a minute ago', {
      suggestion: 'Wait for Retry-After before sending another.',
      headers: { 'retry-after': String(Math.ceil(wait / 1000)) },
    })
  }
  const via = JSON.parse(latest.agreed_to ?? '{}')
  await requestOptIns(db, projectId, book, [{ id: contactId, email: contact.email }], { method: via.via ?? 'api', ip: null, userAgent: null, ...(via.form && { form: via.form }) }, mail, now, { again: true })
  return { contactId, expiresAt: isoTime(now + OPT_IN_LINK_MS) }
}
