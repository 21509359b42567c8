import type { World } from './world.ts'

/**
 * Makes an email one campaign's, as the campaign sender would have: a campaign row and the
 * recipient row that points at the email. For tests of what campaigns count.
 */
export async function asCampaignEmail(w: World, emailId: string, contactId: string): Promise<string> {
  const id = Bun.randomUUIDv7()
  const now = Date.now()
  await w.t.app.writer.run(async (trx) => {
    await trx
      .insertInto('campaigns')
      .values({
        id,
        project_id: w.projectId,
        name: 'Counted',
        description: null,
        subject: 'Hi',
        html: '<p>Hi</p>',
        content: null,
        preview_text: null,
        from_address: 'ada@sender.example.com',
        from_name: null,
        reply_to: '[]',
        cc: '[]',
        bcc: '[]',
        audience_type: 'ALL',
        segment_id: null,
        audience_condition: null,
        status: 'SENT',
        scheduled_at: null,
        started_at: now,
        sent_at: now,
        batch_size: 100,
        batch_window_minutes: 1,
        listed_through: null,
        handed_through: null,
        batch_started_at: null,
        error: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
    await trx.insertInto('campaign_recipients').values({ campaign_id: id, contact_id: contactId, state: 'queued', email_id: emailId, sent_at: null, delivered_at: null, opened_at: null, clicked_at: null, bounced_at: null, complained_at: null, unsubscribed_at: null, created_at: now }).execute()
  })
  return id
}

/** A campaign's counters. */
export const campaignCounts = (w: World, id: string) =>
  w.t.app.db.selectFrom('campaigns').select(['opened', 'clicked', 'unsubscribed']).where('id', '=', id).executeTakeFirstOrThrow()
