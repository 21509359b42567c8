import { sql, type ExpressionBuilder, type RawBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'

// Campaign tables as other modules may read them (webhooks' payloads, the queue's moves of a
// campaign's deliveries), so that they are named in their own module alone (src/db/owners.ts).

/** The id of the campaign an email (`emailId`, a column of the outer query such as 'e.id') was sent for, as a scalar subquery; null for other mail. */
export const campaignOfEmail = (eb: ExpressionBuilder<any, any>, emailId: string) =>
  (eb as ExpressionBuilder<DB, never>)
    .selectFrom('campaign_recipients as r')
    .select('r.campaign_id')
    .where('r.email_id', '=', sql.ref<string>(emailId))
    .limit(1)

/**
 * The emails sent for the campaign, as a condition on a column of email ids (`emailId`, such as
 * 'deliveries.email_id'): an EXISTS, so that the queue's partial indexes lead and the campaign's
 * recipients are never walked.
 */
export const sentForCampaign =
  (campaignId: string) =>
  (emailId: string): RawBuilder<boolean> =>
    sql<boolean>`EXISTS (SELECT 1 FROM campaign_recipients r WHERE r.email_id = ${sql.ref(emailId)} AND r.campaign_id = ${campaignId})`
