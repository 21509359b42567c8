import type { Kysely } from 'kysely'

/**
 * The beginning of what a webhook's endpoint answered to the last call of a delivery, kept beside
 * its status: the delivery log shows the request (the payload) and the response.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('last_response_body', 'text').execute()
}
