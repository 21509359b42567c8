// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { LEGACY_TOKEN_DAYS, returnPath } from '../../src/delivery/verp.ts'
import { signToken } from '../../src/lib/signed.ts'
import { parseReport } from '../../src/smtp/inbound-report.ts'
import { RawSocket } from '../helpers/raw-socket.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

const SECRET = 'test-secret-test-secret-test-secret'
const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'reports')
let w: World
let port: number

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'mx-port': '0', 'smtp-max-message-mb': '1' } })
  port = w.t.app.listeners()!.mx.port!
})

afterAll(() => w.close())

/** Sends mail to `to` through Plunk's API (so the recipient is a contact), delivers it, and says what went out. */
async function delivered(to: string) {
  const sent = await w.t.request('POST', '/v1/send', { key: w.key, body: { to, from: 'ada@sender.example.com', subject: 'Hi', body: '<p>Hi</p>', subscribed: true } })
  await w.deliver()
  const emailId = sent.body.data.emails[0].email
  const email = await w.t.app.db.selectFrom('emails').selectAll().where('id', '=', emailId).executeTakeFirstOrThrow()
  const delivery = await w.t.app.db.selectFrom('deliveries').selectAll().where('email_id', '=', emailId).executeTakeFirstOrThrow()
  return { emailId, messageId: email.message_id, delivery, contactId: sent.body.data.emails[0].contact.id, verp: returnPath(SECRET, delivery.id, 'mst.sender.example.com') }
}

/** A fixture report, rewritten to be about this delivery: its return path, Message-ID and recipient. */
async function reportAbout(name: string, about: { verp: string; messageId: string }, recipient: string) {
  const fixture = readFileSync(join(FIXTURES, name), 'latin1')
  const parsed = await parseReport(Buffer.from(fixture, 'latin1'))
  const named = parsed.kind === 'dsn' ? parsed.recipients[0]!.recipient! : parsed.kind === 'arf' ? parsed.originalRcptTo ?? parsed.original.to[0]! : parsed.kind === 'plain-bounce' ? parsed.original.to[0] : undefined
  let text = fixture.replace(/bounces\+[a-z0-9]+-[a-z2-7]+@mst\.sender\.example\.com/g, about.verp).replace(/<0193a1b2-[0-9a-f-]+@sender\.example\.com>/g, about.messageId)
  if (named) text = text.split(named).join(recipient)
  return text
}

/** One SMTP session to the MX listener: MAIL FROM:<> (as bounces are), the recipients, the message. */
async function deliverReport(to: string[], message: string): Promise<any> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port, tls: { rejectUnauthorized: false }, name: 'reporter.example' } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  try {
    return await new Promise((resolve) => connection.send({ from: '', to }, message, (error, info) => resolve(error ?? info)))
  } finally {
    connection.quit()
  }
}

const eventsOf = async (emailId: string) => (await w.t.request('GET', `/api/v1/emails/${emailId}`, { key: w.key })).body.emailEvents as any[]
const suppressed = async (email: string) => (await w.t.request('GET', '/api/v1/suppressions', { key: w.key })).body.data.find((s: any) => s.email === email)
const subscribed = async (contactId: string) => (await w.t.request('GET', `/contacts/${contactId}`, { key: w.key })).body.subscribed

describe('bounces (RFC 3464)', () => {
  test.each(['postfix-bounce.eml', 'exim-bounce.eml', 'sendmail-bounce.eml', 'exchange-bounce.eml', 'gmail-bounce.eml'])(
    '%s: BOUNCED, suppressed, unsubscribed, once',
    async (fixture) => {
      const to = `${fixture.split('-')[0]}@example.net`
      const sent = await delivered(to)
      const report = await reportAbout(fixture, sent, to)
      expect((await deliverReport([sent.verp], report)).response).toMatch(/^250/)
      const events = await eventsOf(sent.emailId)
      expect(events.map((e) => e.status)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'BOUNCED'])
      expect(events.at(-1).data).toMatchObject({ recipient: to, action: 'failed', status: expect.stringMatching(/^5\./), hard: true, source: 'dsn' })
      expect((await w.t.app.db.selectFrom('deliveries').select('state').where('id', '=', sent.delivery.id).executeTakeFirstOrThrow()).state).toBe('bounced')
      expect(await suppressed(to)).toMatchObject({ reason: 'hard_bounce' })
      expect(await subscribed(sent.contactId)).toBe(false)
      await deliverReport([sent.verp], report)
      expect(await eventsOf(sent.emailId)).toHaveLength(4)
    },
  )

  test('a delayed report adds DELIVERY_DELAYED and changes nothing else; a success report adds nothing', async () => {
    const sent = await delivered('slowpoke@example.net')
    await deliverReport([sent.verp], await reportAbout('delayed.eml', sent, 'slowpoke@example.net'))
    await deliverReport([sent.verp], await reportAbout('delivered.eml', sent, 'slowpoke@example.net'))
    const events = await eventsOf(sent.emailId)
    expect(events.map((e) => e.status)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'DELIVERY_DELAYED'])
    expect(events.at(-1).data).toMatchObject({ action: 'delayed', status: '4.4.7' })
    expect(await suppressed('slowpoke@example.net')).toBeUndefined()
  })

  test('a forwarded bounce at the feedback address counts by the token of the original it returns, never by its Message-ID alone', async () => {
    const sent = await delivered('forwarded@example.net')
    const report = await reportAbout('postfix-bounce.eml', sent, 'forwarded@example.net')
    await deliverReport([`fbl@${HOSTNAME}`], report.split(sent.verp).join('someone@elsewhere.example'))
    expect((await eventsOf(sent.emailId)).at(-1).status).toBe('DELIVERED')
    await deliverReport([`fbl@${HOSTNAME}`], report)
    expect((await eventsOf(sent.emailId)).at(-1).status).toBe('BOUNCED')
  })

  test('a plain-text bounce is classified by the reply rules', async () => {
    const sent = await delivered('oldschool@example.net')
    await deliverReport([sent.verp], await reportAbout('qmail-plain.eml', sent, 'oldschool@example.net'))
    expect((await eventsOf(sent.emailId)).at(-1)).toMatchObject({ status: 'BOUNCED', data: { source: 'plain', hard: true } })
  })
})

describe('return-path tokens', () => {
  /** The token form before tokens were made opaque: the delivery id in base36, signed. */
  const readableToken = (deliveryId: number) => `bounces+${signToken(SECRET, 'return-path', deliveryId.toString(36))}@mst.sender.example.com`

  test('the return path of a delivery does not show its id, nor how many were sent between two', async () => {
    const first = await delivered('count-a@example.net')
    const second = await delivered('count-b@example.net')
    expect(second.delivery.id).toBeGreaterThan(first.delivery.id)
    for (const sent of [first, second]) {
      const received = w.mx.received.findLast((m) => m.to.includes(sent.delivery.recipient))!
      expect(received.from).toBe(sent.verp)
      expect(received.from).toMatch(/^bounces\+[a-z2-7]{26}-[a-z2-7]{16}@mst\.sender\.example\.com$/)
      expect(received.from).not.toContain(`+${sent.delivery.id.toString(36)}-`)
    }
  })

  test(`a bounce to an old, readable token is still applied within ${LEGACY_TOKEN_DAYS} days of the delivery`, async () => {
    const sent = await delivered('legacy@example.net')
    const verp = readableToken(sent.delivery.id)
    expect((await deliverReport([verp], await reportAbout('postfix-bounce.eml', { ...sent, verp }, 'legacy@example.net'))).response).toMatch(/^250/)
    expect((await eventsOf(sent.emailId)).at(-1)).toMatchObject({ status: 'BOUNCED', data: { hard: true } })
  })

  test('an old, readable token of an older delivery has expired: its bounce changes nothing', async () => {
    const sent = await delivered('legacy-old@example.net')
    const past = Date.now() - (LEGACY_TOKEN_DAYS + 1) * 86_400_000
    await w.t.app.db.updateTable('deliveries').set({ created_at: past }).where('id', '=', sent.delivery.id).execute()
    const verp = readableToken(sent.delivery.id)
    await deliverReport([verp], await reportAbout('postfix-bounce.eml', { ...sent, verp }, 'legacy-old@example.net'))
    expect((await eventsOf(sent.emailId)).at(-1).status).toBe('DELIVERED')
    expect(await suppressed('legacy-old@example.net')).toBeUndefined()
    await deliverReport([sent.verp], await reportAbout('postfix-bounce.eml', sent, 'legacy-old@example.net'))
    expect((await eventsOf(sent.emailId)).at(-1).status).toBe('BOUNCED')
  })
})

describe('complaints (RFC 5965)', () => {
  test('an abuse report: COMPLAINED, suppressed, unsubscribed, once', async () => {
    const sent = await delivered('grumpy@example.net')
    const report = await reportAbout('arf-abuse.eml', sent, 'grumpy@example.net')
    expect((await deliverReport([`fbl@${HOSTNAME}`], report)).response).toMatch(/^250/)
    expect((await eventsOf(sent.emailId)).at(-1)).toMatchObject({ status: 'COMPLAINED', data: { recipient: 'grumpy@example.net', feedbackType: 'abuse' } })
    expect(await suppressed('grumpy@example.net')).toMatchObject({ reason: 'complaint' })
    expect(await subscribed(sent.contactId)).toBe(false)
    await deliverReport([`fbl@${HOSTNAME}`], report)
    expect((await eventsOf(sent.emailId)).filter((e) => e.status === 'COMPLAINED')).toHaveLength(1)
  })
})

describe('what the MX listener refuses or ignores', () => {
  test.each([
    ['an address of another domain (no relaying)', 'someone@gmail.com'],
    ['a return path with a bad signature', 'bounces+1a-aaaaaaaaaaaaaaaa@mst.sender.example.com'],
    ['a return path without a token', 'bounces@mst.sender.example.com'],
  ])('refuses %s with 550 5.7.1', async (_, to) => {
    const result = await deliverReport([to], 'Subject: x\r\n\r\nx')
    expect(result.responseCode).toBe(550)
    expect(result.response).toContain('5.7.1')
  })

  test.each(['no-status-part.eml', 'ordinary.eml'])('%s changes nothing', async (fixture) => {
    const before = await w.t.app.db.selectFrom('email_events').select('id').execute()
    const result = await deliverReport([`fbl@${HOSTNAME}`], readFileSync(join(FIXTURES, fixture), 'latin1'))
    expect(result.response).toMatch(/^250/)
    expect(await w.t.app.db.selectFrom('email_events').select('id').execute()).toEqual(before)
  })

  test('a complaint at the feedback address without a token changes nothing when no feedback-loop senders are listed', async () => {
    const sent = await delivered('unproven@example.net')
    const report = (await reportAbout('arf-abuse.eml', sent, 'unproven@example.net')).split(sent.verp).join('bounces@elsewhere.example')
    expect((await deliverReport([`fbl@${HOSTNAME}`], report)).response).toMatch(/^250/)
    expect((await eventsOf(sent.emailId)).at(-1).status).toBe('DELIVERED')
    const kept = await w.t.app.db.selectFrom('received_reports').select(['outcome', 'reason']).orderBy('id', 'desc').executeTakeFirstOrThrow()
    expect(kept).toEqual({ outcome: 'untrusted', reason: expect.stringContaining('no feedback-loop senders are listed (fblSenders)') })
  })

  test('a report about a message this server never sent changes nothing', async () => {
    const before = await w.t.app.db.selectFrom('email_events').select('id').execute()
    const verp = returnPath(SECRET, 999_999, 'mst.sender.example.com')
    const report = await reportAbout('gmail-bounce.eml', { verp, messageId: '<never@sender.example.com>' }, 'ghost@example.net')
    expect((await deliverReport([verp], report)).response).toMatch(/^250/)
    expect(await w.t.app.db.selectFrom('email_events').select('id').execute()).toEqual(before)
  })

  test('1,000 recipients are answered 452 past the hundredth, and the server carries on', async () => {
    const recipients = Array.from({ length: 1000 }, (_, i) => returnPath(SECRET, 500_000 + i, 'mst.sender.example.com'))
    const result = await deliverReport(recipients, 'Subject: x\r\n\r\nx')
    expect(result.accepted.length + result.rejected.length).toBe(1000)
    expect(result.rejected.length).toBe(900)
    expect((await deliverReport([`fbl@${HOSTNAME}`], 'Subject: x\r\n\r\nx')).response).toMatch(/^250/)
  })

  test.each([
    ['stops in the middle of DATA', (verp: string) => `EHLO x\r\nMAIL FROM:<>\r\nRCPT TO:<${verp}>\r\nDATA\r\nSubject: cut\r\n\r\npart of a rep`],
    ['stops in the middle of a command line', () => 'EHLO x\r\nMAIL FROM:<postmaster@exam'],
  ])('a client that %s is dropped cleanly: no event, and the next session works', async (_, script) => {
    const sent = await delivered(`cut-${Date.now()}@example.net`)
    const before = await w.t.app.db.selectFrom('email_events').select('id').execute()
    const socket = await RawSocket.open(port)
    socket.write(script(sent.verp))
    socket.end()
    // The server has given the session up once it closes its side; no event may come of it.
    await socket.closedByPeer()
    expect(await w.t.app.db.selectFrom('email_events').select('id').execute()).toEqual(before)
    expect((await deliverReport([`fbl@${HOSTNAME}`], 'Subject: x\r\n\r\nx')).response).toMatch(/^250/)
  })

  test('a message over the size limit is refused with 552', async () => {
    const result = await deliverReport([`fbl@${HOSTNAME}`], `Subject: big\r\n\r\n${'x'.repeat(1100 * 1024)}`)
    expect(result.responseCode).toBe(552)
  })
})
