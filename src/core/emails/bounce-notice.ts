import type { Db } from '../../db/schema.ts'
import { newId } from '../../lib/ids.ts'
import { domainRows } from '../domains/domain-queries.ts'
import { returnPathHost } from '../domains/records.ts'
import { deliveryTimesOf } from '../queue/index.ts'
import { buildDsn } from './dsn-message.ts'
import type { NewEmailEvent } from './emails.repository.ts'
import { enqueueEmail, uniqueRecipients, type PreparedEmail } from './send.ts'

/*
 * Bounce notices for relayed mail (SES's feedback forwarding): an app that hands mail to the
 * relay learns of a bounce the way SMTP tells it, a delivery status notification (RFC 3464) to
 * its envelope sender, even when the bounce comes after the relay said 250. Off unless
 * MAILSTEAD_RELAY_BOUNCE_NOTICES was on as the relay took the message.
 */

/** Keeps a relayed email's envelope sender, in the transaction that queues it. */
export async function keepBounceNotice(db: Db, emailId: string, notify: string): Promise<void> {
  await db.insertInto('relay_bounce_notices').values({ email_id: emailId, notify }).execute()
}

/** What a BOUNCED event says of its recipient, whether an attempt or a report made it. */
interface Failure {
  recipient: string
  status: string
  diagnostic: string | null
  remoteMta: string | null
}

function failureOf(data: Record<string, unknown> | null): Failure | undefined {
  const recipient = typeof data?.recipient === 'string' ? data.recipient : undefined
  if (!recipient) return undefined
  const text = (key: string) => (typeof data?.[key] === 'string' ? (data[key] as string) : null)
  const status = text('enhancedCode') ?? (text('status')?.startsWith('5.') ? text('status')! : '5.0.0')
  const diagnostic = text('response') ?? text('diagnostic')
  return { recipient, status, diagnostic, remoteMta: text('mx') ?? text('remoteMta') }
}

/**
 * The reaction to an email's new events: for each BOUNCED one of a relayed email that asked for
 * notices, a DSN is queued to its envelope sender, in the same transaction. The notice itself
 * asks for none, so a notice that bounces ends there.
 */
export async function queueBounceNotices(db: Db, emailId: string, events: readonly NewEmailEvent[]): Promise<void> {
  const bounced = events.filter((e) => e.status === 'BOUNCED')
  if (bounced.length === 0) return
  const notice = await db.selectFrom('relay_bounce_notices').select('notify').where('email_id', '=', emailId).executeTakeFirst()
  if (!notice) return
  const original = await originalOf(db, emailId)
  if (!original) return
  for (const event of bounced) {
    const failure = failureOf(event.data)
    if (failure) await enqueueEmail(db, await noticeEmail(original, notice.notify, failure, event.at), { maxAgeMs: original.maxAgeMs }, event.at)
  }
}

interface Original {
  id: string
  projectId: number
  domainId: number
  domain: string
  returnPathHost: string
  messageId: string
  subject: string
  createdAt: number
  /** The header block of the message as sent, when its body is still kept. */
  head: string | null
  maxAgeMs: number
}

async function originalOf(db: Db, emailId: string): Promise<Original | undefined> {
  const row = await db
    .selectFrom('emails')
    .innerJoin(domainRows(db).as('domains'), 'domains.id', 'emails.domain_id')
    .leftJoin('email_contents', 'email_contents.email_id', 'emails.id')
    .select(['emails.id', 'emails.project_id', 'emails.domain_id', 'emails.message_id', 'emails.subject', 'emails.created_at', 'domains.name', 'domains.return_path_label', 'email_contents.mime'])
    .where('emails.id', '=', emailId)
    .executeTakeFirst()
  if (!row || row.domain_id === null) return undefined
  const delivery = await deliveryTimesOf(db, emailId)
  const raw = row.mime ? Buffer.from(row.mime).toString('latin1') : null
  const end = raw?.search(/\r?\n\r?\n/) ?? -1
  return {
    id: row.id,
    projectId: row.project_id,
    domainId: row.domain_id,
    domain: row.name,
    returnPathHost: returnPathHost(row),
    messageId: row.message_id,
    subject: row.subject,
    createdAt: row.created_at,
    head: raw && end >= 0 ? raw.slice(0, end + 2) : null,
    maxAgeMs: delivery ? delivery.expires_at - delivery.created_at : 72 * 3_600_000,
  }
}

/** The notice as an email of the original's project, from its sending domain, ready to queue. */
async function noticeEmail(original: Original, notify: string, failure: Failure, at: number): Promise<PreparedEmail> {
  const id = newId()
  const from = `Mail Delivery System <mailer-daemon@${original.domain}>`
  const subject = `Undelivered: ${original.subject}`.slice(0, 200)
  const messageId = `<${id}@${original.domain}>`
  const mime = await buildDsn({
    reportingMta: original.returnPathHost,
    from,
    to: notify,
    messageId,
    date: new Date(at),
    original: { subject: original.subject, messageId: original.messageId, arrivedAt: new Date(original.createdAt), head: original.head },
    ...failure,
  })
  return {
    id,
    projectId: original.projectId,
    domainId: original.domainId,
    // Only a real domain's mail has a notice (originalOf): a sandbox's bounces are simulated.
    sandbox: false,
    from,
    recipients: { to: [notify], cc: [], bcc: [], replyTo: [] },
    subject,
    html: null,
    text: null,
    messageId,
    mime,
    scheduledAt: null,
    envelope: uniqueRecipients([notify]),
  }
}
