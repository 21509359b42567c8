import { updateMany } from '../../db/bulk.ts'
import { jsonText } from '../../db/json.ts'
import type { Db } from '../../db/schema.ts'
import { newId } from '../../lib/ids.ts'
import { requireAddress } from '../../lib/address.ts'
import { contactRows } from '../contacts/index.ts'
import { queueCampaignEmails } from '../emails/email-events.ts'
import type { NewDelivery } from '../queue/index.ts'
import type { QueuedEmail } from '../emails/index.ts'
import { isSuppressed } from '../suppressions/index.ts'
import { render } from '../templates/render.ts'
import { senderOf, type CampaignRow } from './campaign.ts'
import { updateCampaignRow } from './campaigns.repository.ts'

/** The verified domain a campaign sends from (none in a sandbox), and how long its mail may be retried. */
export interface SendingFrom {
  domainId: number | null
  domainName: string
  /** Queued by a sandbox project: its deliveries are simulated. */
  sandbox: boolean
  maxAgeMs: number
}

interface Recipient {
  contact_id: string
  email: string
  subscribed: number
  data: string
  /** 1 or 0 from SQLite, true or false from PostgreSQL. */
  suppressed: number | boolean
}

const nextRecipients = (db: Db, campaign: CampaignRow, limit: number): Promise<Recipient[]> =>
  db
    .selectFrom('campaign_recipients as r')
    .innerJoin(contactRows(db).as('c'), 'c.id', 'r.contact_id')
    .select(['r.contact_id', 'c.email', 'c.subscribed', jsonText('c.data').as('data')])
    .select((eb) => isSuppressed(eb, 'c').as('suppressed'))
    .where('r.campaign_id', '=', campaign.id)
    .where('r.state', '=', 'listed')
    .where('r.contact_id', '>', campaign.handed_through ?? '')
    .orderBy('r.contact_id')
    .limit(limit)
    .execute()

/**
 * Hands the next `limit` recipients to the delivery queue in the caller's transaction: for each
 * one still subscribed and not suppressed, an email (its subject personalised; its body is built
 * at its first attempt) with a delivery per envelope recipient and a QUEUED event; the others are
 * skipped. The cursor moves with them, so a restart never hands anyone twice.
 */
export async function handChunk(db: Db, campaign: CampaignRow, from: SendingFrom, limit: number, now: number) {
  const rows = await nextRecipients(db, campaign, limit + 1)
  const chunk = rows.slice(0, limit)
  const extra = uniqueExtras(campaign, chunk)
  const emails: QueuedEmail[] = []
  const deliveries: NewDelivery[] = []
  const marks: Array<Record<string, unknown>> = []
  for (const row of chunk) {
    if (row.subscribed !== 1 || Number(row.suppressed) === 1) {
      marks.push({ campaign_id: campaign.id, contact_id: row.contact_id, state: 'skipped', email_id: null })
      continue
    }
    const id = newId()
    emails.push(emailRow(campaign, from, row, id, now))
    for (const to of envelopeOf(row.email, extra)) deliveries.push(deliveryRow(campaign, from, id, to, now))
    marks.push({ campaign_id: campaign.id, contact_id: row.contact_id, state: 'queued', email_id: id })
  }
  await queueCampaignEmails(db, campaign, emails, deliveries, now)
  await updateMany(db, 'campaign_recipients', ['campaign_id', 'contact_id'], ['state', 'email_id'], marks)
  const updated = await updateCampaignRow(db, campaign.id, {
    handed_through: chunk.at(-1)?.contact_id ?? campaign.handed_through,
    batch_handed: campaign.batch_handed + emails.length,
    updated_at: now,
  })
  return { campaign: updated, handed: emails.length, more: rows.length > limit }
}

function emailRow(campaign: CampaignRow, from: SendingFrom, row: Recipient, id: string, now: number): QueuedEmail {
  const data = JSON.parse(row.data) as Record<string, unknown>
  const recipients = { to: [row.email], cc: JSON.parse(campaign.cc), bcc: JSON.parse(campaign.bcc), replyTo: JSON.parse(campaign.reply_to) }
  return {
    id,
    project_id: campaign.project_id,
    domain_id: from.domainId,
    contact_id: row.contact_id,
    from_address: senderOf(campaign),
    recipients: JSON.stringify(recipients),
    subject: render(campaign.subject, { ...data, email: row.email, data }, { html: false }),
    message_id: `<${id}@${from.domainName}>`,
    status: 'QUEUED',
    created_at: now,
    updated_at: now,
  }
}

const deliveryRow = (campaign: CampaignRow, from: SendingFrom, emailId: string, to: Envelope, now: number): NewDelivery => ({
  email_id: emailId,
  project_id: campaign.project_id,
  recipient: to.address,
  recipient_domain: to.domain,
  state: 'queued',
  sandbox: from.sandbox ? 1 : 0,
  next_attempt_at: now,
  expires_at: now + from.maxAgeMs,
  created_at: now,
  updated_at: now,
})

interface Envelope {
  address: string
  key: string
  domain: string
}

const envelopeEntry = (address: string): Envelope => {
  const checked = requireAddress(address)
  return { address, key: checked.key, domain: checked.asciiDomain }
}

/** The campaign's cc and bcc addresses, checked once for the chunk. */
const uniqueExtras = (campaign: CampaignRow, chunk: Recipient[]): Envelope[] =>
  chunk.length === 0 ? [] : [...JSON.parse(campaign.cc), ...JSON.parse(campaign.bcc)].map(envelopeEntry)

/** The contact, then the campaign's cc and bcc, each address once. */
function envelopeOf(contactEmail: string, extra: Envelope[]): Envelope[] {
  const seen = new Map<string, Envelope>()
  for (const entry of [envelopeEntry(contactEmail), ...extra]) if (!seen.has(entry.key)) seen.set(entry.key, entry)
  return [...seen.values()]
}
