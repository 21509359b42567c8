// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { returnPath } from '../../src/delivery/verp.ts'
import { arf, deliverReport, dsn, plainBounce, reportId, RETURN_PATH_HOST, sendToAll, type Sent } from '../helpers/reports.ts'
import { addUnverifiedDomain, SECRET } from '../helpers/sending.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

/*
 * Reports are believed only when they prove who they are about: attacks on the MX listener over
 * real SMTP, each with its neighbours. A stranger here is a co-recipient: someone who got the same
 * email (so knows its Message-ID and the other recipients' addresses) but only their own token.
 */

const FBL = `fbl@${HOSTNAME}`
const REPORTED = ['BOUNCED', 'COMPLAINED', 'DELIVERY_DELAYED']
let w: World
let port: number
let n = 0

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'mx-port': '0', 'fbl-senders': 'fbl.isp.example' } })
  port = w.t.app.listeners()!.mx.port!
  // Another project's sending domain: its return-path host mst.other.example.org is this server's too.
  const other = await w.t.project('Other')
  await addUnverifiedDomain(w, 'other.example.org', other.secretKey)
})

afterAll(() => w.close())

/** A victim and an attacker who got the same email. */
async function pair() {
  n++
  const { emailId, messageId, deliveries } = await sendToAll(w, [`victim${n}@example.net`, `attacker${n}@example.net`])
  return { emailId, messageId, victim: deliveries[0]!, attacker: deliveries[1]!, to: deliveries.map((d) => d.recipient) }
}

/** Everything a report may change about one delivery: its events, state, suppression, subscription, and the guardrail counters. */
async function stateOf(emailId: string, d: Sent) {
  const email = (await w.t.request('GET', `/api/v1/emails/${emailId}`, { key: w.key })).body
  const suppressions = (await w.t.request('GET', '/api/v1/suppressions', { key: w.key })).body.data
  const contacts = (await w.t.request('GET', `/contacts?search=${encodeURIComponent(d.recipient)}`, { key: w.key })).body.contacts
  const row = await w.t.app.db.selectFrom('deliveries').select('state').where('id', '=', d.id).executeTakeFirstOrThrow()
  const counters = await w.t.app.db
    .selectFrom('sending_counters')
    .select((eb) => [eb.fn.sum<number>('complained').as('complained'), eb.fn.sum<number>('hard_bounced').as('hardBounced')])
    .executeTakeFirstOrThrow()
  return {
    events: email.emailEvents.filter((e: any) => REPORTED.includes(e.status) && e.data?.recipient === d.recipient).map((e: any) => e.status),
    state: row.state,
    suppressed: suppressions.some((s: any) => s.email === d.recipient),
    subscribed: contacts[0].subscribed,
    counters: { complained: Number(counters.complained ?? 0), hardBounced: Number(counters.hardBounced ?? 0) },
  }
}

const lastReport = () => w.t.app.db.selectFrom('received_reports').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow()

/** Sends a report and expects it taken (250) and changing nothing of `untouched`; answers what was kept of it. */
async function changesNothing(to: string[], message: string, emailId: string, ...untouched: Sent[]) {
  const before = await Promise.all(untouched.map((d) => stateOf(emailId, d)))
  expect((await deliverReport(port, to, message)).response).toMatch(/^250/)
  expect(await Promise.all(untouched.map((d) => stateOf(emailId, d)))).toEqual(before)
  return lastReport()
}

describe('a stranger naming a co-recipient changes nothing', () => {
  test('a complaint at the feedback address with the Message-ID everyone saw, no token: kept, untrusted', async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const kept = await changesNothing([FBL], arf({ messageId, to, rcptTo: victim.recipient, from: `<${attacker.recipient}>` }), emailId, victim, attacker)
    expect(kept).toMatchObject({ outcome: 'untrusted', kind: 'arf', mail_from: '', remote_address: '127.0.0.1' })
    expect(kept.reason).toContain('without a token of this server')
    expect(JSON.parse(kept.rcpt_to)).toEqual([FBL])
  })

  test("with the attacker's own token in the original, naming the victim: the token's delivery is not the victim's", async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const kept = await changesNothing([FBL], arf({ messageId, to, rcptTo: victim.recipient, returnPath: attacker.verp }), emailId, victim, attacker)
    expect(kept.outcome).toBe('untrusted')
    expect(kept.reason).toBe(`the report names ${victim.recipient}, not the delivery's recipient`)
  })

  test("sent to the attacker's own return path, naming the victim", async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const kept = await changesNothing([attacker.verp], arf({ messageId, to, rcptTo: victim.recipient }), emailId, victim, attacker)
    expect(JSON.parse(kept.verdicts)).toEqual([
      { deliveryId: attacker.id, effect: 'complaint', result: 'untrusted', reason: `the report names ${victim.recipient}, not the delivery's recipient`, said: 'Feedback type abuse, reported by mail.isp.example' },
    ])
  })

  test('a plain "550 5.1.1" bounce at the feedback address quoting the victim', async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const bounce = plainBounce({ notice: `<${victim.recipient}>:\n550 5.1.1 no mailbox here by that name`, messageId, to })
    expect((await changesNothing([FBL], bounce, emailId, victim, attacker)).reason).toContain('a bounce there proves itself only by a token')
  })

  test("the same plain bounce at the attacker's own return path", async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const bounce = plainBounce({ notice: `<${victim.recipient}>:\n550 5.1.1 no mailbox here by that name`, messageId, to })
    expect((await changesNothing([attacker.verp], bounce, emailId, victim, attacker)).outcome).toBe('untrusted')
  })

  test("a DSN at the feedback address whose original names the victim's Message-ID but carries no token", async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const report = dsn({ messageId, to, recipients: [{ final: victim.recipient }] })
    expect((await changesNothing([FBL], report, emailId, victim, attacker)).outcome).toBe('untrusted')
  })

  test.each([
    ["the victim's token: believed", 'victim', ['COMPLAINED']],
    ["the attacker's own token: the victim is untouched", 'attacker', []],
  ])('a complaint whose original shows a token only in a Received line (envelope-from), %s', async (_, whose, events) => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const token = whose === 'victim' ? victim.verp : attacker.verp
    const report = arf({ messageId, to, rcptTo: victim.recipient }).replace('From: Ada', `Received: from mail.mailstead.example by mx.isp.example (envelope-from <${token}>)\r\nFrom: Ada`)
    await deliverReport(port, [FBL], report)
    expect((await stateOf(emailId, victim)).events).toEqual(events)
    expect((await stateOf(emailId, attacker)).events).toEqual([])
  })

  test("with the attacker's own token and the recipient redacted: the attacker's own delivery complained, the victim is untouched", async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const before = await stateOf(emailId, victim)
    await deliverReport(port, [FBL], arf({ messageId, to, rcptTo: 'redacted@isp.example', returnPath: attacker.verp }))
    expect(await stateOf(emailId, attacker)).toMatchObject({ events: ['COMPLAINED'], suppressed: true })
    expect({ ...(await stateOf(emailId, victim)), counters: null }).toEqual({ ...before, counters: null })
  })

  test("neighbour: the victim's own provider, with the victim's token in the original, is believed; the attacker is untouched", async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const before = await stateOf(emailId, attacker)
    expect((await deliverReport(port, [FBL], arf({ messageId, to, rcptTo: victim.recipient, returnPath: victim.verp }))).response).toMatch(/^250/)
    expect(await stateOf(emailId, victim)).toMatchObject({ events: ['COMPLAINED'], suppressed: true, subscribed: false, counters: { complained: before.counters.complained + 1 } })
    expect({ ...(await stateOf(emailId, attacker)), counters: null }).toEqual({ ...before, counters: null })
    expect((await lastReport()).outcome).toBe('applied')
  })
})

describe("a token counts only at its own delivery's return-path host", () => {
  test("A's token at B's domain (another project's return-path host) is taken, kept and changes nothing", async () => {
    const { emailId, messageId, victim: a, to } = await pair()
    const atOther = returnPath(SECRET, a.id, 'mst.other.example.org')
    const kept = await changesNothing([atOther], dsn({ messageId, to, recipients: [{ final: a.recipient }] }), emailId, a)
    expect(kept.outcome).toBe('untrusted')
    expect(kept.reason).toBe(`it arrived at the host mst.other.example.org, not delivery ${a.id}'s own return-path host (${RETURN_PATH_HOST})`)
  })

  test("A's token in the original's return path at B's host, at the feedback address", async () => {
    const { emailId, messageId, victim: a, to } = await pair()
    const report = arf({ messageId, to, rcptTo: a.recipient, returnPath: returnPath(SECRET, a.id, 'mst.other.example.org') })
    expect((await changesNothing([FBL], report, emailId, a)).reason).toContain('the original it returns went out from the host mst.other.example.org')
  })

  test.each([
    ['a host that is no domain of this server', 'gmail.com'],
    ["the sending domain itself, not its return-path host", 'sender.example.com'],
    ["this server's own hostname", HOSTNAME],
  ])("A's token at %s is refused at RCPT with 550 5.7.1", async (_, host) => {
    const { victim: a } = await pair()
    const result = await deliverReport(port, [returnPath(SECRET, a.id, host)], 'Subject: x\r\n\r\nx')
    expect(result.responseCode).toBe(550)
    expect(result.response).toContain('5.7.1')
  })

  test("neighbour: A's token at its own host, written in capitals, is applied", async () => {
    const { emailId, messageId, victim: a, attacker: b, to } = await pair()
    const upper = a.verp.replace(RETURN_PATH_HOST, RETURN_PATH_HOST.toUpperCase())
    expect((await deliverReport(port, [upper], dsn({ messageId, to, recipients: [{ final: a.recipient }] }))).response).toMatch(/^250/)
    expect(await stateOf(emailId, a)).toMatchObject({ events: ['BOUNCED'], state: 'bounced', suppressed: true, subscribed: false })
    expect((await stateOf(emailId, b)).events).toEqual([])
  })

  test('a valid token for a delivery this server does not have is taken at a return-path host and kept', async () => {
    const verp = returnPath(SECRET, 999_999, RETURN_PATH_HOST)
    expect((await deliverReport(port, [verp], dsn({ messageId: '<never@sender.example.com>', to: ['ghost@example.net'], recipients: [{ final: 'ghost@example.net' }] }))).response).toMatch(/^250/)
    expect(await lastReport()).toMatchObject({ outcome: 'untrusted', reason: 'its token names delivery 999999, which this server does not have' })
  })
})

describe("the report must name the delivery's recipient", () => {
  const dsnCases: Array<[string, boolean, (r: string) => Parameters<typeof dsn>[0]['recipients']]> = [
    ['Final-Recipient is the recipient', true, (r) => [{ final: r }]],
    ['Final-Recipient in other capitals', true, (r) => [{ final: r.toUpperCase() }]],
    ['Final-Recipient rewritten by forwarding, Original-Recipient the recipient', true, (r) => [{ final: 'inbox@forwarded.example', original: r }]],
    ['Final-Recipient someone else', false, () => [{ final: 'someone@example.net' }]],
    ['Final-Recipient a longer address ending like the recipient', false, (r) => [{ final: `jim${r}` }]],
    ['no recipient named at all', false, () => [{ final: null }]],
    // Receivers never hide a bounce's recipient: one that names no one proves nothing of it.
    ['Final-Recipient redacted', false, () => [{ final: 'redacted@example.net' }]],
  ]
  test.each(dsnCases)("a DSN at the delivery's return path: %s -> applied: %p", async (_, applied, recipients) => {
    const { emailId, messageId, victim: d, to } = await pair()
    const before = await stateOf(emailId, d)
    expect((await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: recipients(d.recipient) }))).response).toMatch(/^250/)
    if (applied) expect(await stateOf(emailId, d)).toMatchObject({ events: ['BOUNCED'], state: 'bounced', suppressed: true })
    else expect(await stateOf(emailId, d)).toEqual(before)
    expect((await lastReport()).outcome).toBe(applied ? 'applied' : 'untrusted')
  })

  // Large feedback loops (AOL, Yahoo, Microsoft) hide the recipient: a complaint may name no one, never someone else.
  const arfCases: Array<[string, boolean, (d: Sent, to: string[]) => { rcptTo: string | null; to: string[] }]> = [
    ['Original-Rcpt-To is the recipient', true, (d, to) => ({ rcptTo: d.recipient, to })],
    ['no Original-Rcpt-To, the To header names the recipient among others', true, (_, to) => ({ rcptTo: null, to })],
    ['no Original-Rcpt-To, To redacted', true, () => ({ rcptTo: null, to: ['redacted@isp.example'] })],
    ['no Original-Rcpt-To, To names only someone else (the recipient was a Bcc)', true, () => ({ rcptTo: null, to: ['shown@example.net'] })],
    ['Original-Rcpt-To redacted@isp.example, as AOL writes it', true, (_, to) => ({ rcptTo: 'redacted@isp.example', to })],
    ['Original-Rcpt-To a run of x at the recipient\'s domain', true, (d, to) => ({ rcptTo: `xxxxxxxx@${d.recipient.split('@')[1]}`, to })],
    ['Original-Rcpt-To "xxxxx", no address at all', true, (_, to) => ({ rcptTo: 'xxxxx', to })],
    ['Original-Rcpt-To "redacted@", no domain', true, (_, to) => ({ rcptTo: 'redacted@', to })],
    ['Original-Rcpt-To is someone else though To names the recipient', false, (_, to) => ({ rcptTo: 'someone@example.net', to })],
    ['Original-Rcpt-To is a real address that only starts like a redaction', false, (_, to) => ({ rcptTo: 'redacted.user@example.net', to })],
    ['Original-Rcpt-To a longer address ending like the recipient', false, (d, to) => ({ rcptTo: `jim${d.recipient}`, to })],
  ]
  test.each(arfCases)('a complaint with the delivery\'s token: %s -> applied: %p', async (_, applied, names) => {
    const { emailId, messageId, victim: d, to } = await pair()
    const before = await stateOf(emailId, d)
    expect((await deliverReport(port, [FBL], arf({ messageId, returnPath: d.verp, ...names(d, to) }))).response).toMatch(/^250/)
    if (applied) expect(await stateOf(emailId, d)).toMatchObject({ events: ['COMPLAINED'], suppressed: true, subscribed: false })
    else expect(await stateOf(emailId, d)).toEqual(before)
  })

  const plainCases: Array<[string, boolean, (r: string) => string]> = [
    ['quotes the recipient', true, (r) => `<${r}>:\nSorry, no mailbox here by that name. (#5.1.1)`],
    ['quotes it in other capitals, sendmail style', true, (r) => `550 5.1.1 ${r.toUpperCase()}... User unknown`],
    ['quotes a longer address that contains it', false, (r) => `<x.${r}>:\n550 5.1.1 user unknown`],
    ['quotes nobody', false, () => '550 5.1.1 user unknown'],
  ]
  test.each(plainCases)("a plain bounce at the delivery's return path %s -> applied: %p", async (_, applied, notice) => {
    const { emailId, messageId, victim: d, to } = await pair()
    const before = await stateOf(emailId, d)
    expect((await deliverReport(port, [d.verp], plainBounce({ notice: notice(d.recipient), messageId, to }))).response).toMatch(/^250/)
    if (applied) expect(await stateOf(emailId, d)).toMatchObject({ events: ['BOUNCED'], state: 'bounced', suppressed: true })
    else expect(await stateOf(emailId, d)).toEqual(before)
  })

  test("a DSN at A's return path naming A and B bounces A alone", async () => {
    const { emailId, messageId, victim: a, attacker: b, to } = await pair()
    const before = await stateOf(emailId, b)
    await deliverReport(port, [a.verp], dsn({ messageId, to, recipients: [{ final: a.recipient }, { final: b.recipient }] }))
    expect((await stateOf(emailId, a)).events).toEqual(['BOUNCED'])
    expect(await stateOf(emailId, b)).toEqual({ ...before, counters: expect.anything() })
    const kept = await lastReport()
    expect(kept.outcome).toBe('applied')
    expect(JSON.parse(kept.verdicts)).toEqual([
      { deliveryId: a.id, effect: 'hard-bounce', result: 'applied', said: '550 5.1.1 user unknown' },
      { deliveryId: a.id, effect: 'hard-bounce', result: 'untrusted', reason: `the report names ${b.recipient}, not the delivery's recipient`, said: '550 5.1.1 user unknown' },
    ])
  })
})

describe('a report sent again is recorded once', () => {
  test('the same bounce under a new report Message-ID', async () => {
    const { emailId, messageId, victim: d, to } = await pair()
    const recipients = [{ final: d.recipient }]
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients, id: reportId() }))
    const once = await stateOf(emailId, d)
    expect(once.events).toEqual(['BOUNCED'])
    expect((await deliverReport(port, [d.verp], dsn({ messageId, to, recipients, id: reportId() }))).response).toMatch(/^250/)
    expect(await stateOf(emailId, d)).toEqual(once)
    expect(await lastReport()).toMatchObject({ outcome: 'duplicate' })
  })

  test('the same bounce again as a plain-text bounce with the same status', async () => {
    const { emailId, messageId, victim: d, to } = await pair()
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient }] }))
    const once = await stateOf(emailId, d)
    await deliverReport(port, [d.verp], plainBounce({ notice: `<${d.recipient}>:\n550 5.1.1 user unknown`, messageId, to }))
    expect(await stateOf(emailId, d)).toEqual(once)
  })

  test('the same complaint under a new Message-ID, at the feedback address and at the return path: counted once', async () => {
    const { emailId, messageId, victim: d, to } = await pair()
    const complaint = () => arf({ messageId, to, rcptTo: d.recipient, returnPath: d.verp })
    await deliverReport(port, [FBL], complaint())
    const once = await stateOf(emailId, d)
    expect(once.events).toEqual(['COMPLAINED'])
    await deliverReport(port, [FBL], complaint())
    await deliverReport(port, [d.verp, FBL], complaint())
    expect(await stateOf(emailId, d)).toEqual(once)
  })

  test('neighbour: a delay and then a bounce about the same delivery are both recorded', async () => {
    const { emailId, messageId, victim: d, to } = await pair()
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient, action: 'delayed', status: '4.4.7' }] }))
    await deliverReport(port, [d.verp], dsn({ messageId, to, recipients: [{ final: d.recipient }] }))
    expect((await stateOf(emailId, d)).events).toEqual(['DELIVERY_DELAYED', 'BOUNCED'])
  })
})
