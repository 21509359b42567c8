import { sql } from 'kysely'
import { insertMany } from '../../db/bulk.ts'
import type { Db } from '../../db/schema.ts'
import { audienceOf } from './audience.ts'
import type { CampaignRow } from './campaign.ts'
import { updateCampaignRow } from './campaigns.repository.ts'

/**
 * Reads the next `size` members of the audience, in contact id order, into the campaign's
 * recipients, and moves the cursor in the same transaction: a restart goes on from there, and the
 * (campaign, contact) key makes a contact a recipient once whatever happens. When the audience is
 * exhausted the campaign is marked listed and its total becomes the exact count.
 */
export async function listChunk(db: Db, campaign: CampaignRow, size: number, now: number): Promise<CampaignRow> {
  const audience = await audienceOf(db, campaign, now)
  const ids = await audience
    .select('c.id')
    .where('c.id', '>', campaign.listed_through ?? '')
    .orderBy('c.id')
    .limit(size)
    .execute()
  await insertMany(
    db,
    'campaign_recipients',
    ['campaign_id', 'contact_id', 'state', 'created_at'],
    ids.map((row) => ({ campaign_id: campaign.id, contact_id: row.id, state: 'listed', created_at: now })),
    { then: sql`ON CONFLICT DO NOTHING` },
  )
  const listed = ids.length < size
  return updateCampaignRow(db, campaign.id, {
    listed_through: ids.at(-1)?.id ?? campaign.listed_through,
    listed: listed ? 1 : 0,
    ...(listed && { total: await recipientCount(db, campaign.id) }),
    updated_at: now,
  })
}

const recipientCount = async (db: Db, campaignId: string) =>
  Number(
    (await db.selectFrom('campaign_recipients').select((eb) => eb.fn.countAll<number>().as('n')).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()).n,
  )
