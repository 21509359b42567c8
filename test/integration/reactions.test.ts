// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { unsubscribeLinks } from '../../src/core/tracking/unsubscribe-links.ts'
import { returnPath } from '../../src/delivery/verp.ts'
import { asCampaignEmail } from '../helpers/campaign-row.ts'
import { cli } from '../helpers/cli.ts'
import { arf, deliverReport, dsn, RETURN_PATH_HOST } from '../helpers/reports.ts'
import { cliFlags, SECRET } from '../helpers/sending.ts'
import { createHook, startHookServer, type HookServer } from '../helpers/webhooks.ts'
import { runsOf, workflow } from '../helpers/workflows.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { until } from '../helpers/until.ts'

/*
 * Whatever path unsubscribes a contact (the API, an unsubscribe link, an import over HTTP or the
 * CLI, a hard bounce at delivery or reported over SMTP, a complaint), the same things follow it:
 * the webhooks hear of it, a tracked segment on `subscribed` records the exit, and a workflow
 * triggered by that exit starts.
 */

const BASE = 'https://mail.example.org'
let w: World
let hooks: HookServer
let mxPort: number
let segmentId: string
let flowId: string

beforeAll(async () => {
  w = await createWorld({
    started: true,
    settings: { 'webhook-allow-private-targets': 'true', 'public-url': BASE, 'mx-port': '0' },
    mx: { onRcpt: (to) => (to.startsWith('gone') ? { code: 550, message: `5.1.1 <${to}>: Recipient address rejected: User unknown` } : undefined) },
  })
  mxPort = w.t.app.listeners()!.mx.port!
  hooks = startHookServer()
  await createHook(w, w.key, `${hooks.base}/contacts`, ['contact.updated', 'contact.unsubscribed'])
  const condition = { logic: 'AND', groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }] }] }
  segmentId = (await api('POST', '/segments', { name: 'Subscribed', condition, trackMembership: true })).body.id
  const flow = await workflow(w, { triggerType: 'EVENT', triggerConfig: { eventName: `segment.${segmentId}.exit` }, steps: [{ id: 'later', type: 'DELAY', config: { amount: 1, unit: 'days' } }] })
  flowId = flow.id
})

afterAll(async () => {
  await w.close()
  hooks.stop()
})

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })

/** A new subscribed contact: a member of the tracked segment. */
async function subscribedContact(email: string): Promise<string> {
  const created = await api('POST', '/contacts', { email, subscribed: true })
  expect(created.status).toBe(201)
  return created.body.id
}

/** Sends an email to the address and runs the delivery loop; answers the email and its delivery's return path. */
async function sendTo(to: string) {
  const sent = await api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to, subject: 'Hi', html: '<p>Hi</p>' })
  expect(sent.status).toBe(200)
  const emailId: string = sent.body.emailId
  await w.deliver()
  const delivery = await w.t.app.db.selectFrom('deliveries').select('id').where('email_id', '=', emailId).executeTakeFirstOrThrow()
  const messageId = (await w.t.app.db.selectFrom('emails').select('message_id').where('id', '=', emailId).executeTakeFirstOrThrow()).message_id
  return { emailId, messageId, verp: returnPath(SECRET, delivery.id, RETURN_PATH_HOST) }
}

const runsFor = async (contactId: string) => (await runsOf(w, flowId)).filter((run) => run.contactId === contactId).length

/**
 * The exit workflow's runs for the contact, once the workflow scanner has read its exits. On
 * PostgreSQL the scanner reads only events older than every transaction still running on the
 * server, so work elsewhere on a shared server can hold it back for a while.
 */
async function exitRuns(contactId: string, exits: number): Promise<number> {
  return until(async () => {
    await w.t.app.workflows.drain()
    return runsFor(contactId)
  }, (runs) => runs >= exits)
}

/** What followed the changes to a contact: its webhook calls, its tracked segment's events and membership, the exit workflow's runs. */
async function reactionsTo(contactId: string) {
  await w.t.app.webhooks.drain()
  const webhooks = hooks
    .to('/contacts')
    .filter((call) => call.payload.data.id === contactId)
    .map((call) => (call.payload.type === 'contact.unsubscribed' ? `contact.unsubscribed (${call.payload.data.source})` : call.payload.type))
  const events = await w.t.app.db.selectFrom('events').select('name').where('contact_id', '=', contactId).where('name', 'like', 'segment.%').orderBy('id').execute()
  const segment = events.map((e) => e.name.replace(segmentId, '<id>'))
  const member = await w.t.app.db.selectFrom('segment_memberships').select('contact_id').where('segment_id', '=', segmentId).where('contact_id', '=', contactId).executeTakeFirst()
  const runs = await exitRuns(contactId, segment.filter((name) => name.endsWith('.exit')).length)
  return { webhooks, segment, member: member !== undefined, runs }
}

/** What follows an unsubscription that came this way. */
const unsubscribedBy = (source: string) => ({
  webhooks: ['contact.updated', `contact.unsubscribed (${source})`],
  segment: ['segment.<id>.entry', 'segment.<id>.exit'],
  member: false,
  runs: 1,
})

const counters = (campaignId: string) =>
  w.t.app.db.selectFrom('campaigns').select(['bounced', 'hard_bounced', 'complained', 'unsubscribed']).where('id', '=', campaignId).executeTakeFirstOrThrow()

/** A CSV file in the data directory. */
function csvFile(name: string, text: string): string {
  const path = join(w.t.dataDir, name)
  writeFileSync(path, text)
  return path
}

describe('an unsubscription is followed by the same reactions whichever path made it', () => {
  test('a new contact enters the tracked segment, and nothing else follows', async () => {
    const contactId = await subscribedContact('fresh@example.net')
    expect(await reactionsTo(contactId)).toEqual({ webhooks: [], segment: ['segment.<id>.entry'], member: true, runs: 0 })
  })

  test('an update over HTTP', async () => {
    const contactId = await subscribedContact('patched@example.net')
    expect((await api('PATCH', `/contacts/${contactId}`, { subscribed: false })).status).toBe(200)
    expect(await reactionsTo(contactId)).toEqual(unsubscribedBy('update'))
  })

  test("an email's unsubscribe link, which also counts for the email's campaign", async () => {
    const contactId = await subscribedContact('reader@example.net')
    const { emailId } = await sendTo('reader@example.net')
    const campaignId = await asCampaignEmail(w, emailId, contactId)
    const { url } = unsubscribeLinks({ secret: SECRET, baseUrl: BASE, emailId, mailDomain: RETURN_PATH_HOST })
    const done = await w.t.request('POST', new URL(url).pathname, { raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(done.status).toBe(200)
    expect(await reactionsTo(contactId)).toEqual(unsubscribedBy('link'))
    expect(await counters(campaignId)).toMatchObject({ unsubscribed: 1 })
  })

  test('a contact import over HTTP', async () => {
    const contactId = await subscribedContact('imported@example.net')
    const response = await w.t.app.handle(
      new Request('http://localhost/contacts/import', {
        method: 'POST',
        headers: { authorization: `Bearer ${w.key}`, 'content-type': 'text/csv' },
        body: 'email,subscribed\nimported@example.net,false\n',
      }),
    )
    expect(response.status).toBe(202)
    await w.t.app.imports.drain()
    expect(await reactionsTo(contactId)).toEqual(unsubscribedBy('update'))
  })

  test('a contact import by the CLI', async () => {
    const contactId = await subscribedContact('cli@example.net')
    const file = csvFile('unsubscribe.csv', 'email,subscribed\ncli@example.net,false\n')
    const result = await cli(['contacts', 'import', file, '--project', String(w.projectId), ...cliFlags(w)])
    expect(result).toMatchObject({ code: 0, out: 'Imported 1 rows: 0 created, 1 updated, 0 failed' })
    expect(await reactionsTo(contactId)).toEqual(unsubscribedBy('update'))
  })

  test('a hard bounce at delivery: the fake MX refuses the recipient for good', async () => {
    const contactId = await subscribedContact('gone@example.net')
    const sent = await api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to: 'gone@example.net', subject: 'Hi', html: '<p>Hi</p>' })
    const campaignId = await asCampaignEmail(w, sent.body.emailId, contactId)
    await w.deliver()
    expect(await reactionsTo(contactId)).toEqual(unsubscribedBy('hard_bounce'))
    expect(await counters(campaignId)).toMatchObject({ bounced: 1, hard_bounced: 1 })
  })

  test('a hard bounce reported over SMTP (a DSN to the return path)', async () => {
    const contactId = await subscribedContact('moved@example.net')
    const { emailId, messageId, verp } = await sendTo('moved@example.net')
    const campaignId = await asCampaignEmail(w, emailId, contactId)
    const report = dsn({ messageId, to: ['moved@example.net'], returnPath: verp, recipients: [{ final: 'moved@example.net', status: '5.1.1' }] })
    expect((await deliverReport(mxPort, [verp], report)).response).toMatch(/^250/)
    expect(await reactionsTo(contactId)).toEqual(unsubscribedBy('hard_bounce'))
    expect(await counters(campaignId)).toMatchObject({ bounced: 1, hard_bounced: 1 })
  })

  test('a complaint reported over SMTP (an ARF report to the return path)', async () => {
    const contactId = await subscribedContact('grumpy@example.net')
    const { emailId, messageId, verp } = await sendTo('grumpy@example.net')
    const campaignId = await asCampaignEmail(w, emailId, contactId)
    const report = arf({ messageId, to: ['grumpy@example.net'], rcptTo: 'grumpy@example.net', returnPath: verp })
    expect((await deliverReport(mxPort, [verp], report)).response).toMatch(/^250/)
    expect(await reactionsTo(contactId)).toEqual(unsubscribedBy('complaint'))
    expect(await counters(campaignId)).toMatchObject({ complained: 1 })
  })

  test('a report about an address that is already unsubscribed changes nothing more', async () => {
    const contactId = await subscribedContact('twice@example.net')
    const { messageId, verp } = await sendTo('twice@example.net')
    expect((await api('PATCH', `/contacts/${contactId}`, { subscribed: false })).status).toBe(200)
    const report = dsn({ messageId, to: ['twice@example.net'], returnPath: verp, recipients: [{ final: 'twice@example.net', status: '5.1.1' }] })
    expect((await deliverReport(mxPort, [verp], report)).response).toMatch(/^250/)
    expect(await reactionsTo(contactId)).toEqual(unsubscribedBy('update'))
  })
})
