import type { Db } from '../../db/schema.ts'
import { invalid } from '../../lib/errors.ts'
import { projectContacts } from '../contacts/contact-queries.ts'
import type { Condition } from '../segments/condition.ts'
import { compileContext, matching, membersOf } from '../segments/membership.ts'
import { findSegment } from '../segments/index.ts'
import { notSuppressed } from '../suppressions/index.ts'
import type { CampaignRow } from './campaign.ts'

type Audience = Pick<CampaignRow, 'project_id' | 'audience_type' | 'segment_id' | 'audience_condition'>

/**
 * The contacts (`c`) a campaign goes to: its audience (everyone, a segment's members, or those a
 * condition matches) who are subscribed and not suppressed.
 */
export async function audienceOf(db: Db, campaign: Audience, now: number) {
  const context = await compileContext(db, campaign.project_id, now)
  const audience = await (async () => {
    if (campaign.audience_type === 'ALL') return projectContacts(db, campaign.project_id)
    if (campaign.audience_type === 'SEGMENT') {
      const segment = campaign.segment_id ? await findSegment(db, campaign.project_id, campaign.segment_id) : undefined
      if (!segment) throw invalid('segmentId', "the campaign's segment no longer exists")
      return membersOf(db, segment, context)
    }
    return matching(db, campaign.project_id, JSON.parse(campaign.audience_condition!) as Condition, context)
  })()
  return audience.where('c.subscribed', '=', 1).where((eb) => notSuppressed(eb, 'c'))
}

/** How many contacts the campaign would go to now. */
export async function audienceSize(db: Db, campaign: Audience, now: number): Promise<number> {
  const query = await audienceOf(db, campaign, now)
  const { n } = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(n)
}
