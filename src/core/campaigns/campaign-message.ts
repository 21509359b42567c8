import { jsonText } from '../../db/json.ts'
import type { Db } from '../../db/schema.ts'
import { contactRows } from '../contacts/index.ts'
import { findDomainById } from '../domains/index.ts'
import { returnPathHost } from '../domains/records.ts'
import { emailRows } from '../emails/email-queries.ts'
import { hasStoredBody } from '../emails/index.ts'
import type { MessageParts } from '../emails/message.ts'
import { trackHtml, type LinkSettings } from '../tracking/links.ts'
import { bulkMarks } from '../tracking/bulk-mail.ts'
import { SANDBOX_TRACKING, trackingFor } from '../tracking/policy.ts'
import { SANDBOX_HOST } from '../projects/sandbox-host.ts'
import { renderCampaignBody } from './body.ts'

export interface ComposedEmail {
  parts: MessageParts
  html: string | null
  text: string | null
}

const loadCampaignEmail = (db: Db, emailId: string) =>
  db
    .selectFrom('campaign_recipients as r')
    .innerJoin('campaigns as k', 'k.id', 'r.campaign_id')
    .innerJoin(emailRows(db).as('e'), 'e.id', 'r.email_id')
    .innerJoin(contactRows(db).as('c'), 'c.id', 'r.contact_id')
    .select(['k.id as campaign_id', 'k.project_id', 'k.html', 'k.content', 'k.preview_text', 'k.from_address', 'k.from_name', 'e.recipients', 'e.subject', 'e.message_id', 'e.domain_id', 'e.created_at'])
    .select(jsonText('c.data').as('data'))
    .where('r.email_id', '=', emailId)
    .executeTakeFirst()

/**
 * A campaign email's message, made at its first attempt from the campaign and the contact as they
 * are then: bodies personalised, links tracked when the domain's marketing switches say so, and
 * the marks of all marketing mail (bulkMarks: one-click unsubscribe, Precedence: bulk,
 * Feedback-ID). Undefined for an email that is not (or no longer) a campaign's.
 */
export async function composeCampaignEmail(db: Db, emailId: string, links: LinkSettings): Promise<ComposedEmail | undefined> {
  const row = await loadCampaignEmail(db, emailId)
  const domain = row?.domain_id ? await findDomainById(db, row.domain_id) : undefined
  // No domain at all: a sandbox's email, which has its own return-path host.
  if (!row || (row.domain_id !== null && !domain)) return undefined
  const recipients = JSON.parse(row.recipients) as { to: string[]; cc: string[]; replyTo: string[] }
  const data = JSON.parse(row.data) as Record<string, unknown>
  const to = recipients.to[0]!
  const feedback = { campaign: row.campaign_id, project: row.project_id, stream: 'campaign' as const }
  const { unsubscribe, headers } = bulkMarks({ ...links, emailId, mailDomain: domain ? returnPathHost(domain) : SANDBOX_HOST, feedback })
  const body = renderCampaignBody(row, { ...data, email: to, data }, unsubscribe.url)
  const html =
    body.html === undefined ? undefined : trackHtml(body.html, { ...links, emailId, ...trackingFor(domain ?? SANDBOX_TRACKING, 'marketing', {}, body.html), skip: (url) => url === unsubscribe.url })
  const parts: MessageParts = {
    from: { address: row.from_address, ...(row.from_name && { name: row.from_name }) },
    to: [{ address: to }],
    cc: recipients.cc,
    bcc: [],
    replyTo: recipients.replyTo,
    subject: row.subject,
    html,
    text: body.text,
    headers,
    attachments: [],
    messageId: row.message_id,
    date: new Date(row.created_at),
  }
  return { parts, html: html ?? null, text: body.text ?? null }
}

/**
 * Whether an email's message is gone for good: retention deleted its body (retentionDays) and it
 * is not a campaign's, whose message is built again from the campaign at its next attempt. What
 * the queue's retry asks before it sends a failed delivery again.
 */
export async function messageLost(db: Db, emailId: string): Promise<boolean> {
  if (await hasStoredBody(db, emailId)) return false
  const recipient = await db.selectFrom('campaign_recipients').select('campaign_id').where('email_id', '=', emailId).executeTakeFirst()
  return recipient === undefined
}
