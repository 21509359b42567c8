import type { Db } from '../../db/schema.ts'
import { newId } from '../../lib/ids.ts'
import { requireAddress } from '../../lib/address.ts'
import { findContactByKey } from '../contacts/index.ts'
import type { MessageParts } from '../emails/message.ts'
import { prepareEmail, senderDomain, type PreparedEmail } from '../emails/send.ts'
import { render } from '../templates/render.ts'
import { bulkMarks } from '../tracking/bulk-mail.ts'
import { renderCampaignBody } from './body.ts'
import type { LinkSettings } from '../tracking/links.ts'
import { requireCampaign } from './campaigns.service.ts'

/**
 * One copy of the campaign for `email`, ready to queue as a transactional email: personalised
 * from that address's contact when there is one, the subject marked [TEST], with the unsubscribe
 * link and headers a real recipient gets. Works in any status; the campaign is not changed.
 */
export async function prepareCampaignTest(
  db: Db,
  projectId: number,
  id: string,
  email: string,
  links: LinkSettings,
  now: number,
  build: (parts: MessageParts) => Promise<Uint8Array>,
): Promise<PreparedEmail> {
  const campaign = await requireCampaign(db, projectId, id)
  const address = requireAddress(email, 'email')
  const contact = await findContactByKey(db, projectId, address.key)
  const data = contact ? (JSON.parse(contact.data) as Record<string, unknown>) : {}
  const emailId = newId()
  const { mailDomain } = await senderDomain(db, projectId, campaign.from_address)
  const { unsubscribe, headers } = bulkMarks({ ...links, emailId, mailDomain, feedback: { campaign: id, project: projectId, stream: 'campaign' } })
  const values = { ...data, email: address.address, data }
  const body = renderCampaignBody(campaign, values, unsubscribe.url)
  return prepareEmail(
    db,
    projectId,
    {
      id: emailId,
      from: { address: campaign.from_address, ...(campaign.from_name && { name: campaign.from_name }) },
      to: [{ address: address.address }],
      replyTo: JSON.parse(campaign.reply_to),
      subject: `[TEST] ${render(campaign.subject, values, { html: false })}`,
      html: body.html,
      text: body.text,
      headers,
    },
    now,
    build,
  )
}
