import { sql, type ExpressionBuilder } from 'kysely'
import type { DB } from '../../db/schema.ts'

// Campaign tables as other modules may read them (webhooks' payloads), so that they are named in
// their own module alone (src/db/owners.ts).

/** The id of the campaign an email (`emailId`, a column of the outer query such as 'e.id') was sent for, as a scalar subquery; null for other mail. */
export const campaignOfEmail = (eb: ExpressionBuilder<any, any>, emailId: string) =>
  (eb as ExpressionBuilder<DB, never>)
    .selectFrom('campaign_recipients as r')
    .select('r.campaign_id')
    .where('r.email_id', '=', sql.ref<string>(emailId))
    .limit(1)
