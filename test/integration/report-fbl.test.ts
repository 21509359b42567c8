// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import { dkimSign } from 'mailauth/lib/dkim/sign'
import { cli } from '../helpers/cli.ts'
import { publishRecords } from '../helpers/domains.ts'
import { queuedId, relaySession, sendMessage } from '../helpers/relay-client.ts'
import { arf, deliverReport, dsn, sendToAll } from '../helpers/reports.ts'
import { cliFlags } from '../helpers/sending.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

/*
 * Complaints at the feedback address without a token of this server: they count only when a
 * listed feedback-loop sender (fblSenders: fbl.isp.example) signed them with DKIM that passes,
 * checked through the server's resolver against keys published in the fake DNS.
 */

const FBL = `fbl@${HOSTNAME}`
const SELECTOR = 'fbl'
let w: World
let port: number
let relayPort: number
/** Another project, with its own verified domain other.example.org. */
let other: { key: string; projectId: number }
let n = 0

const keys = {
  listed: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  lookalike: generateKeyPairSync('rsa', { modulusLength: 2048 }),
}
const pem = (key: (typeof keys)['listed']) => key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string

/** Publishes a DKIM key record for `domain` in the fake DNS. */
function publishKey(domain: string, key: (typeof keys)['listed']) {
  const record = `v=DKIM1; k=rsa; p=${(key.publicKey.export({ type: 'spki', format: 'der' }) as Buffer).toString('base64')}`
  w.dns.records(`${SELECTOR}._domainkey.${domain}`, { type: 'TXT', data: record.match(/.{1,255}/g)! })
}

beforeAll(async () => {
  // DKIM keys are looked up as each signed report arrives: a loaded machine must not turn a slow
  // answer from the fake DNS into a 451 (try later) that these tests would read as "not believed".
  w = await createWorld({ started: true, settings: { 'mx-port': '0', 'relay-port': '0', 'fbl-senders': 'fbl.isp.example', 'dns-timeout-ms': '3000' } })
  port = w.t.app.listeners()!.mx.port!
  relayPort = w.t.app.listeners()!.relay.port!
  const project = await w.t.project('Other')
  other = { key: project.secretKey, projectId: project.id }
  const domain = await w.t.request('POST', '/api/v1/domains', { key: other.key, body: { name: 'other.example.org', region: 'us-east-1' } })
  publishRecords(w.dns, domain.body.dnsRecords)
  await w.t.app.checker.check(domain.body.id)
  publishKey('fbl.isp.example', keys.listed)
  publishKey('mx.fbl.isp.example', keys.listed)
  publishKey('notfbl.isp.example', keys.lookalike)
  publishKey('fbl.isp.example.evil.test', keys.lookalike)
})

afterAll(() => w.close())

/** The message with a DKIM-Signature by `domain` in front; `maxBodyLength` signs only that much of the body (l=). */
async function signed(message: string, domain: string, options: { key?: (typeof keys)['listed']; maxBodyLength?: number } = {}) {
  const { signatures } = await dkimSign(message, {
    canonicalization: 'relaxed/relaxed',
    signatureData: [{ signingDomain: domain, selector: SELECTOR, privateKey: pem(options.key ?? keys.listed), algorithm: 'rsa-sha256', ...(options.maxBodyLength !== undefined && { maxBodyLength: options.maxBodyLength }) }],
  } as never)
  return signatures + message
}

async function pair() {
  n++
  const { emailId, messageId, deliveries } = await sendToAll(w, [`victim${n}@example.net`, `attacker${n}@example.net`])
  return { emailId, messageId, victim: deliveries[0]!, attacker: deliveries[1]!, to: deliveries.map((d) => d.recipient) }
}

/** The reported events of a recipient, and whether they are suppressed. */
async function stateOf(emailId: string, recipient: string) {
  const events = (await w.t.request('GET', `/api/v1/emails/${emailId}`, { key: w.key })).body.emailEvents
  const suppressions = (await w.t.request('GET', '/api/v1/suppressions', { key: w.key })).body.data
  return {
    complained: events.filter((e: any) => e.status === 'COMPLAINED' && e.data.recipient === recipient).length,
    suppressed: suppressions.some((s: any) => s.email === recipient),
  }
}

const untouched = { complained: 0, suppressed: false }
const lastReport = () => w.t.app.db.selectFrom('received_reports').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow()

describe('a complaint at the feedback address without a token', () => {
  test('unsigned: kept, changes nothing', async () => {
    const { emailId, messageId, victim, to } = await pair()
    expect((await deliverReport(port, [FBL], arf({ messageId, to, rcptTo: victim.recipient }))).response).toMatch(/^250/)
    expect(await stateOf(emailId, victim.recipient)).toEqual(untouched)
    expect(await lastReport()).toMatchObject({ outcome: 'untrusted', reason: expect.stringContaining('not signed by a listed feedback-loop sender (no DKIM signature)') })
  })

  test.each(['notfbl.isp.example', 'fbl.isp.example.evil.test'])('signed by %s, which only looks like the listed sender: its passing DKIM counts for nothing', async (domain) => {
    const { emailId, messageId, victim, to } = await pair()
    await deliverReport(port, [FBL], await signed(arf({ messageId, to, rcptTo: victim.recipient }), domain, { key: keys.lookalike }))
    expect(await stateOf(emailId, victim.recipient)).toEqual(untouched)
    expect((await lastReport()).reason).toContain(`signed by ${domain}`)
  })

  test("by the listed sender, its body changed after signing to name the victim: DKIM fails", async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    const report = await signed(arf({ messageId, to, rcptTo: attacker.recipient }), 'fbl.isp.example')
    await deliverReport(port, [FBL], report.replace(`Original-Rcpt-To: <${attacker.recipient}>`, `Original-Rcpt-To: <${victim.recipient}>`))
    expect(await stateOf(emailId, victim.recipient)).toEqual(untouched)
    expect(await stateOf(emailId, attacker.recipient)).toEqual(untouched)
    expect((await lastReport()).reason).toContain('the DKIM signature of a listed feedback-loop sender did not pass (d=fbl.isp.example: ')
  })

  test('by the listed sender, over only part of the body (l=): what follows could be anyone\'s', async () => {
    const { emailId, messageId, victim, to } = await pair()
    await deliverReport(port, [FBL], await signed(arf({ messageId, to, rcptTo: victim.recipient }), 'fbl.isp.example', { maxBodyLength: 40 }))
    expect(await stateOf(emailId, victim.recipient)).toEqual(untouched)
    expect((await lastReport()).reason).toContain('part of the body unsigned (l=)')
  })

  test.each(['fbl.isp.example', 'mx.fbl.isp.example'])('by the listed sender (%s), DKIM passing: the recipient it names complained, and no one else', async (domain) => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    expect((await deliverReport(port, [FBL], await signed(arf({ messageId, to, rcptTo: victim.recipient }), domain))).response).toMatch(/^250/)
    expect(await stateOf(emailId, victim.recipient)).toEqual({ complained: 1, suppressed: true })
    expect(await stateOf(emailId, attacker.recipient)).toEqual(untouched)
    expect(await lastReport()).toMatchObject({ outcome: 'applied', reason: null })
  })

  test.each([
    ['names no Original-Rcpt-To (the To header names every recipient)', (_: string) => null, 'its Original-Rcpt-To is hidden or missing and'],
    ['names a redacted Original-Rcpt-To, and the message went to two', (_: string) => 'redacted@isp.example', 'went to 2 recipients'],
    ['names a recipient the message was not sent to', (_: string) => 'stranger@example.net', 'names no delivery of'],
  ])('by the listed sender, DKIM passing, but it %s: nothing', async (_, rcptTo, reason) => {
    const { emailId, messageId, victim, to } = await pair()
    await deliverReport(port, [FBL], await signed(arf({ messageId, to, rcptTo: rcptTo(victim.recipient) }), 'fbl.isp.example'))
    expect(await stateOf(emailId, victim.recipient)).toEqual(untouched)
    expect(await lastReport()).toMatchObject({ outcome: 'untrusted', reason: expect.stringContaining(reason) })
  })

  test('with more DKIM signatures than are looked at, even a passing one by the listed sender is not checked', async () => {
    const { emailId, messageId, victim, to } = await pair()
    let report = arf({ messageId, to, rcptTo: victim.recipient })
    for (let i = 0; i < 8; i++) report = await signed(report, 'notfbl.isp.example', { key: keys.lookalike })
    await deliverReport(port, [FBL], await signed(report, 'fbl.isp.example'))
    expect(await stateOf(emailId, victim.recipient)).toEqual(untouched)
    expect((await lastReport()).reason).toContain('it carries 9 DKIM signatures, more than the 8 looked at')
  })

  test('a bounce signed by the listed sender proves nothing without a token', async () => {
    const { emailId, messageId, victim, to } = await pair()
    await deliverReport(port, [FBL], await signed(dsn({ messageId, to, recipients: [{ final: victim.recipient }] }), 'fbl.isp.example'))
    expect((await w.t.app.db.selectFrom('deliveries').select('state').where('id', '=', victim.id).executeTakeFirstOrThrow()).state).toBe('delivered')
    expect((await lastReport()).reason).toContain('a bounce there proves itself only by a token')
  })

  test("the listed sender's key cannot be fetched (SERVFAIL): 451, nothing kept or changed; sent again once DNS answers, it counts", async () => {
    const { emailId, messageId, victim, to } = await pair()
    const report = await signed(arf({ messageId, to, rcptTo: victim.recipient }), 'fbl.isp.example')
    const kept = (await lastReport()).id
    w.dns.failing(`${SELECTOR}._domainkey.fbl.isp.example`, 'TXT', 'servfail')
    const refused = await deliverReport(port, [FBL], report)
    expect(refused.responseCode).toBe(451)
    expect((await lastReport()).id).toBe(kept)
    expect(await stateOf(emailId, victim.recipient)).toEqual(untouched)
    publishKey('fbl.isp.example', keys.listed)
    expect((await deliverReport(port, [FBL], report)).response).toMatch(/^250/)
    expect(await stateOf(emailId, victim.recipient)).toEqual({ complained: 1, suppressed: true })
  })
})

/** Sends a message through the relay with the Message-ID given, from `from`, to the recipients; delivers it; answers its email id. */
async function relayed(key: string, from: string, to: string[], messageId: string) {
  const socket = await relaySession(relayPort, key)
  try {
    const message = `From: ${from}\r\nTo: ${to.join(', ')}\r\nSubject: Hi\r\nMessage-ID: ${messageId}\r\n\r\nHi\r\n`
    const reply = await sendMessage(socket, from, to, message)
    const id = queuedId(reply)
    if (!id) throw new Error(`not queued: ${reply}`)
    await w.deliver()
    return id
  } finally {
    socket.close()
  }
}

describe('a listed loop that hides the recipient, and Message-IDs used again', () => {
  test.each(['redacted@isp.example', 'xxxxxxxx@example.net', 'xxxxx', null])(
    'Original-Rcpt-To %p about a message that went to one recipient: that recipient complained',
    async (rcptTo) => {
      n++
      const { emailId, messageId, deliveries } = await sendToAll(w, [`alone${n}@example.net`])
      await deliverReport(port, [FBL], await signed(arf({ messageId, to: ['redacted@isp.example'], rcptTo }), 'fbl.isp.example'))
      expect(await stateOf(emailId, deliveries[0]!.recipient)).toEqual({ complained: 1, suppressed: true })
      expect(await lastReport()).toMatchObject({ outcome: 'applied' })
    },
  )

  test("another project sending the same Message-ID through the relay, to the same recipient, does not make a complaint about ours ambiguous; one about its mail is its own", async () => {
    n++
    const { emailId, messageId, deliveries } = await sendToAll(w, [`reused${n}@example.net`])
    const recipient = deliveries[0]!.recipient
    const theirs = await relayed(other.key, 'eve@other.example.org', [recipient, `also${n}@example.net`], messageId)
    await deliverReport(port, [FBL], await signed(arf({ messageId, to: [recipient], rcptTo: recipient }), 'fbl.isp.example'))
    expect(await stateOf(emailId, recipient)).toEqual({ complained: 1, suppressed: true })
    const otherState = async () => {
      const events = (await w.t.request('GET', `/api/v1/emails/${theirs}`, { key: other.key })).body.emailEvents
      const suppressions = (await w.t.request('GET', '/api/v1/suppressions', { key: other.key })).body.data
      return { complained: events.filter((e: any) => e.status === 'COMPLAINED').length, suppressed: suppressions.some((s: any) => s.email === recipient) }
    }
    expect(await otherState()).toEqual(untouched)
    // The complaint about their copy (its From is their domain) is theirs, and changes nothing of ours.
    await deliverReport(port, [FBL], await signed(arf({ messageId, to: [recipient], rcptTo: 'redacted@isp.example', originalFrom: 'Eve <eve@other.example.org>' }), 'fbl.isp.example'))
    expect(await otherState()).toEqual(untouched)
    expect((await lastReport()).reason).toContain('went to 2 recipients')
    await deliverReport(port, [FBL], await signed(arf({ messageId, to: [recipient], rcptTo: recipient, originalFrom: 'Eve <eve@other.example.org>' }), 'fbl.isp.example'))
    expect(await otherState()).toEqual({ complained: 1, suppressed: true })
    expect(await stateOf(emailId, recipient)).toEqual({ complained: 1, suppressed: true })
  })

  test('a complaint whose original shows a From domain none of our mail under that Message-ID was sent from changes nothing', async () => {
    const { emailId, messageId, victim, to } = await pair()
    await deliverReport(port, [FBL], await signed(arf({ messageId, to, rcptTo: victim.recipient, originalFrom: 'Eve <eve@other.example.org>' }), 'fbl.isp.example'))
    expect(await stateOf(emailId, victim.recipient)).toEqual(untouched)
    expect((await lastReport()).reason).toContain(`names no delivery of ${messageId} from other.example.org to ${victim.recipient}`)
  })

  test('a project that sends one Message-ID to the same recipient twice is not let off: its newest delivery takes the complaint', async () => {
    n++
    const recipient = `twice${n}@example.net`
    const messageId = `<reused-${n}@sender.example.com>`
    const first = await relayed(w.key, 'ada@sender.example.com', [recipient], messageId)
    const second = await relayed(w.key, 'ada@sender.example.com', [recipient, `cc${n}@example.net`], messageId)
    await deliverReport(port, [FBL], await signed(arf({ messageId, to: [recipient], rcptTo: recipient }), 'fbl.isp.example'))
    expect(await stateOf(second, recipient)).toEqual({ complained: 1, suppressed: true })
    expect((await stateOf(first, recipient)).complained).toBe(0)
    expect(await lastReport()).toMatchObject({ outcome: 'applied' })
  })

  test('a token in the original is preferred to the Message-ID: it names the delivery when the Message-ID cannot', async () => {
    const { emailId, messageId, victim, attacker, to } = await pair()
    await deliverReport(port, [FBL], await signed(arf({ messageId, to, rcptTo: 'redacted@isp.example', returnPath: victim.verp }), 'fbl.isp.example'))
    expect(await stateOf(emailId, victim.recipient)).toEqual({ complained: 1, suppressed: true })
    expect(await stateOf(emailId, attacker.recipient)).toEqual(untouched)
  })
})

describe('the operator reads what was received', () => {
  test('mailstead inbound reports lists reports with their outcome and why; inbound show gives one with its message', async () => {
    const { messageId, victim, to } = await pair()
    await deliverReport(port, [FBL], arf({ messageId, to, rcptTo: victim.recipient, id: '<shown@fbl.isp.example>' }))
    const { id } = await lastReport()
    const listed = await cli(['inbound', 'reports', '--outcome', 'untrusted', '--limit', '3', '--json', ...cliFlags(w)])
    expect(listed.code).toBe(0)
    const rows = JSON.parse(listed.out)
    expect(rows).toHaveLength(3)
    expect(rows.every((r: any) => r.outcome === 'untrusted')).toBe(true)
    expect(rows[0]).toMatchObject({ id, kind: 'arf', rcptTo: [FBL], mailFrom: '', messageId: '<shown@fbl.isp.example>', subject: 'FW: Hi', reason: expect.stringContaining('without a token') })
    const table = await cli(['inbound', 'reports', ...cliFlags(w)])
    expect(table.out.split('\n')[0]).toMatch(/^ID +RECEIVED +FROM +KIND +OUTCOME +WHY$/)
    const shown = await cli(['inbound', 'show', String(id), ...cliFlags(w)])
    expect(shown.code).toBe(0)
    expect(shown.out).toContain(`Envelope: MAIL FROM:<> RCPT TO:<${FBL}>`)
    expect(shown.out).toContain(`Original-Rcpt-To: <${victim.recipient}>`)
    expect(shown.out).not.toContain('test-secret')
    expect((await cli(['inbound', 'show', '999999', ...cliFlags(w)])).code).toBe(1)
    expect((await cli(['inbound', 'reports', '--outcome', 'maybe', ...cliFlags(w)])).code).toBe(2)
  })
})
