import { sql, type Insertable, type Updateable } from 'kysely'
import { containsIgnoringCase } from '../../db/caseless.ts'
import { dialectOf } from '../../db/client.ts'
import type { CampaignStatus, CampaignTable, Db } from '../../db/schema.ts'
import { pageOf } from '../../db/paging.ts'
import type { Order } from '../../db/sorting.ts'
import { claim, unclaim, type Claimant } from '../../db/claims.ts'
import { lockedRow } from '../../db/locking.ts'
import { domainPart } from '../../db/text.ts'
import { contactRows } from '../contacts/index.ts'
import { hasCampaignDeliveries } from '../queue/index.ts'
import type { CampaignRow } from './campaign.ts'
import { sentForCampaign } from './campaign-queries.ts'

export const insertCampaign = (db: Db, row: Insertable<CampaignTable>) => db.insertInto('campaigns').values(row).returningAll().executeTakeFirstOrThrow()

export const findCampaign = (db: Db, projectId: number, id: string): Promise<CampaignRow | undefined> =>
  db.selectFrom('campaigns').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

/** A campaign by id alone, whatever its project: for the sender, which holds it already. */
export const campaignById = (db: Db, id: string): Promise<CampaignRow | undefined> => db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirst()

export const updateCampaignRow = (db: Db, id: string, changes: Updateable<CampaignTable>) =>
  db.updateTable('campaigns').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()

// Written as the partial index `campaigns_active` is, so SQLite uses it.
const ACTIVE = sql<boolean>`status IN ('SCHEDULED', 'SENDING')`

/** Campaigns scheduled or being sent, with who holds each (a sending campaign is claimed by the process that sends it). */
export const activeCampaigns = (db: Db) => db.selectFrom('campaigns').select(['id', 'status', 'scheduled_at', 'claimed_by']).where(ACTIVE).execute()

/** Moves the scheduled campaigns among `ids` to SENDING: their time came. */
export const startDueCampaigns = (db: Db, ids: readonly string[], now: number) =>
  db.updateTable('campaigns').set({ status: 'SENDING', started_at: now, updated_at: now }).where('id', 'in', ids).where('status', '=', 'SCHEDULED').execute()

/** Claims those of these campaigns still SENDING and unclaimed (src/db/claims.ts): their ids. */
export async function claimCampaigns(db: Db, claimant: Claimant, ids: readonly string[], now: number): Promise<string[]> {
  const claimed = await claim(db, 'campaigns', claimant, now, { picked: ids, still: (eb) => eb('status', '=', 'SENDING') }).returning('id').execute()
  return claimed.map((row) => row.id)
}

/** Gives back campaigns this process sends no more (they finished, paused, or it stops). */
export const unclaimCampaigns = (db: Db, owner: string, ids: readonly string[]) => unclaim(db, 'campaigns', owner, ids)

/**
 * A campaign as its sender's step reads it, locked until the step's transaction ends: a user's
 * pause or cancel through another process waits for the step, then applies to what it wrote.
 */
export const campaignForStep = (db: Db, id: string): Promise<CampaignRow | undefined> =>
  lockedRow(db, db.selectFrom('campaigns').selectAll().where('id', '=', id)).executeTakeFirst() as Promise<CampaignRow | undefined>

export const deleteCampaignRow = (db: Db, id: string) => db.deleteFrom('campaigns').where('id', '=', id).execute()

export interface CampaignFilter {
  status?: CampaignStatus
  /** Part of the name or subject, any case. */
  search?: string
}

function filtered(db: Db, projectId: number, filter: CampaignFilter) {
  let query = db.selectFrom('campaigns').where('project_id', '=', projectId)
  if (filter.status) query = query.where('status', '=', filter.status)
  if (filter.search) query = query.where(containsIgnoringCase(dialectOf(db), ['name', 'subject'], filter.search))
  return query
}

/** A page of campaigns in `order`, with how many there are in all. */
export const pageCampaigns = (db: Db, projectId: number, filter: CampaignFilter, page: number, pageSize: number, order: Order) =>
  pageOf(filtered(db, projectId, filter), page, pageSize, order)

/** How many of the campaign's recipients have been handed to the queue. */
export async function handedCount(db: Db, campaignId: string): Promise<number> {
  const { n } = await db
    .selectFrom('campaign_recipients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('campaign_id', '=', campaignId)
    .where('state', '=', 'queued')
    .executeTakeFirstOrThrow()
  return Number(n)
}

/** The campaign's recipients not handed to the queue yet, counted by the domain of their contact's address. */
export async function listedByDomain(db: Db, campaignId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('campaign_recipients as r')
    .innerJoin(contactRows(db).as('c'), 'c.id', 'r.contact_id')
    .select([domainPart(db, 'c.email_key').as('domain'), (eb) => eb.fn.countAll<number>().as('count')])
    .where('r.campaign_id', '=', campaignId)
    .where('r.state', '=', 'listed')
    .groupBy(domainPart(db, 'c.email_key'))
    .execute()
  return new Map(rows.map((row) => [row.domain, Number(row.count)]))
}

/** The ids of the emails of the campaign's recipients handed to the queue, as a query to read deliveries by. */
export const campaignEmailIds = (db: Db, campaignId: string) => db.selectFrom('campaign_recipients').select('email_id').where('campaign_id', '=', campaignId)

/** Whether any of the campaign's deliveries still waits for its first attempt. */
export const hasWaitingDeliveries = (db: Db, campaignId: string): Promise<boolean> => hasCampaignDeliveries(db, sentForCampaign(campaignId), 'queued')

/** Deletes the contact's places in every campaign's recipients (an erasure): the campaigns' counters keep what they counted. */
export async function deleteRecipientsOf(db: Db, contactId: string): Promise<number> {
  const result = await db.deleteFrom('campaign_recipients').where('contact_id', '=', contactId).executeTakeFirst()
  return Number(result.numDeletedRows)
}
