// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { deliveryOfReturnPath } from '../../src/delivery/verp.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

let w: World
let strict: FakeMx

beforeAll(async () => {
  w = await createWorld()
  strict = await new FakeMx({
    onRcpt: (to) =>
      to.startsWith('unknown')
        ? { code: 550, message: '5.1.1 <' + to + '>: Recipient address rejected: User unknown' }
        : to.startsWith('system')
          ? { code: 500, message: '5.3.0 <' + to + '>: Other mail system problem' }
          : undefined,
    starttls: true,
  }).start('127.0.0.3', w.port)
  w.dns.records('strict.example', { type: 'MX', exchange: 'mx.strict.example', priority: 10 })
  w.dns.records('mx.strict.example', { type: 'A', address: '127.0.0.3' })
})

afterAll(async () => {
  await strict.stop()
  await w.close()
})

const send = (body: Record<string, unknown>) =>
  w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'Ada <ada@sender.example.com>', subject: 'Hello', html: '<p>Hi</p>', ...body } })
const emailOf = async (id: string) => (await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).body
const statuses = (email: any) => email.emailEvents.map((e: any) => e.status)

describe('delivery to an MX that accepts', () => {
  test('the message arrives DKIM-signed, with a signed return path, and the events say so', async () => {
    const sent = await send({ to: 'bob@example.net' })
    await w.deliver()
    const received = w.mx.received.find((m) => m.to.includes('bob@example.net'))!
    expect(received).toBeDefined()
    expect(await w.dkim(received.raw)).toEqual([
      { status: 'pass', domain: 'sender.example.com', algorithm: 'rsa-sha256' },
      { status: 'pass', domain: 'sender.example.com', algorithm: 'ed25519-sha256' },
    ])
    expect(received.from).toMatch(/^bounces\+[a-z0-9]+-[a-z2-7]{16}@mst\.sender\.example\.com$/)
    const delivery = await w.t.app.db.selectFrom('deliveries').selectAll().where('email_id', '=', sent.body.emailId).executeTakeFirstOrThrow()
    expect(deliveryOfReturnPath('test-secret-test-secret-test-secret', received.from)).toBe(delivery.id)
    expect(w.mx.ehloNames.at(-1)).toBe(HOSTNAME)
    const raw = received.raw.toString()
    expect(raw).toContain(`Message-ID: <${sent.body.emailId}@sender.example.com>`)
    expect(raw).toMatch(/^Date: /m)
    expect(raw).toContain('Content-Type: text/plain')
    const email = await emailOf(sent.body.emailId)
    expect(statuses(email)).toEqual(['QUEUED', 'SENT', 'DELIVERED'])
    expect(email.emailEvents[2].data).toEqual({ recipient: 'bob@example.net', mx: 'mx.example.net', ip: '127.0.0.2', tls: null, mtaSts: null, smtpCode: 250, response: expect.stringMatching(/^250/), attempt: 1 })
    expect(delivery.state).toBe('delivered')
  })

  test('signs List-Unsubscribe when the message has it', async () => {
    await send({ to: 'list@example.net', headers: { 'List-Unsubscribe': '<mailto:unsub@sender.example.com>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } })
    await w.deliver()
    const raw = w.mx.received.find((m) => m.to.includes('list@example.net'))!.raw.toString()
    const signed = /^DKIM-Signature:[\s\S]*?h=([^;]+);/m.exec(raw)![1]!.toLowerCase().replace(/\s+/g, '')
    expect(signed.split(':')).toEqual(expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post', 'from', 'to', 'subject', 'date', 'message-id']))
    // Over-signed: each named once more than it occurs, so that none can be added on the way.
    for (const name of ['from', 'to', 'subject', 'date']) expect(signed.split(':').filter((n) => n === name)).toHaveLength(2)
  })

  test('to, cc and bcc each get the same bytes; bcc is in no header', async () => {
    const sent = await send({ to: 'to@example.net', cc: 'cc@example.net', bcc: ['hidden@example.net'] })
    await w.deliver()
    const copies = w.mx.received.filter((m) => ['to@example.net', 'cc@example.net', 'hidden@example.net'].includes(m.to[0]!))
    expect(copies.map((m) => m.to[0]).sort()).toEqual(['cc@example.net', 'hidden@example.net', 'to@example.net'])
    expect(new Set(copies.map((m) => m.raw.toString())).size).toBe(1)
    expect(copies[0]!.raw.toString()).not.toContain('hidden@example.net')
    const email = await emailOf(sent.body.emailId)
    expect(statuses(email).filter((s: string) => s === 'DELIVERED')).toHaveLength(3)
  })

  test('STARTTLS is used when offered, even with a self-signed certificate; DELIVERED says how it travelled', async () => {
    const sent = await send({ to: 'tls@strict.example' })
    await w.deliver()
    expect(strict.received.at(-1)).toMatchObject({ to: ['tls@strict.example'], secure: true })
    const delivered = (await emailOf(sent.body.emailId)).emailEvents.find((e: any) => e.status === 'DELIVERED')
    expect(delivered.data.tls).toEqual({ version: expect.stringMatching(/^TLSv1\.[23]$/), cipher: expect.any(String), verified: false })
  })
})

describe('a permanent refusal', () => {
  test('bounces, suppresses the address and unsubscribes the contact; the next send is suppressed', async () => {
    const sent = await w.t.request('POST', '/v1/send', {
      key: w.key,
      body: { to: 'unknown@strict.example', from: 'ada@sender.example.com', subject: 'Hi', body: '<p>x</p>', subscribed: true },
    })
    await w.deliver()
    const email = await emailOf(sent.body.data.emails[0].email)
    expect(statuses(email)).toEqual(['QUEUED', 'SENT', 'BOUNCED'])
    expect(email.emailEvents[2].data).toMatchObject({ recipient: 'unknown@strict.example', smtpCode: 550, enhancedCode: '5.1.1', category: 'recipient', hard: true })
    const contact = await w.t.request('GET', `/contacts/${sent.body.data.emails[0].contact.id}`, { key: w.key })
    expect(contact.body.subscribed).toBe(false)
    const list = await w.t.request('GET', '/api/v1/suppressions', { key: w.key })
    expect(list.body.data.map((s: any) => [s.email, s.reason])).toContainEqual(['unknown@strict.example', 'hard_bounce'])

    const again = await send({ to: 'unknown@strict.example' })
    const offered = strict.offered.length
    await w.deliver()
    expect(statuses(await emailOf(again.body.emailId))).toEqual(['SUPPRESSED'])
    expect(strict.offered.length).toBe(offered)
  })

  test('a 500 5.3.0 naming the recipient is hard too: the address is suppressed', async () => {
    const sent = await send({ to: 'system@strict.example' })
    await w.deliver()
    const email = await emailOf(sent.body.emailId)
    expect(email.emailEvents.at(-1)).toMatchObject({ status: 'BOUNCED', data: { smtpCode: 500, enhancedCode: '5.3.0', category: 'mail-system', hard: true } })
    const list = await w.t.request('GET', '/api/v1/suppressions', { key: w.key })
    expect(list.body.data.map((s: any) => [s.email, s.reason])).toContainEqual(['system@strict.example', 'hard_bounce'])
  })

  test('an address suppressed after queueing is checked again when its delivery is claimed', async () => {
    const later = new Date(Date.now() + 200).toISOString()
    const sent = await send({ to: 'changed-mind@example.net', scheduledAt: later })
    await w.t.request('POST', '/api/v1/suppressions', { key: w.key, body: { email: 'changed-mind@example.net' } })
    await Bun.sleep(Date.parse(later) - Date.now() + 1) // until the time it was scheduled for
    await w.deliver()
    expect(statuses(await emailOf(sent.body.emailId))).toEqual(['SCHEDULED', 'SUPPRESSED'])
    expect(w.mx.received.some((m) => m.to.includes('changed-mind@example.net'))).toBe(false)
  })
})

describe('an internal failure', () => {
  test('mail whose sending domain was removed before it left is FAILED, not lost or sent unsigned', async () => {
    const other = await w.t.project('Removing')
    const domain = await w.t.request('POST', '/api/v1/domains', { key: other.secretKey, body: { name: 'gone.example.com', region: 'us-east-1' } })
    const { publishRecords } = await import('../helpers/domains.ts')
    publishRecords(w.dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    // The loop waits meanwhile: started, it could send the email before the domain goes.
    await w.t.app.deliveries.stop()
    const sent = await w.t.request('POST', '/api/v1/emails', { key: other.secretKey, body: { from: 'a@gone.example.com', to: 'left@example.net', subject: 'x', text: 'y' } })
    await w.t.request('DELETE', `/api/v1/domains/${domain.body.id}`, { key: other.secretKey })
    await w.t.app.deliveries.start()
    await w.deliver()
    const email = (await w.t.request('GET', `/api/v1/emails/${sent.body.emailId}`, { key: other.secretKey })).body
    expect(statuses(email)).toEqual(['QUEUED', 'FAILED'])
    expect(email.emailEvents[1].data).toMatchObject({ recipient: 'left@example.net', reason: 'The sending domain was removed' })
    expect(w.mx.received.some((m) => m.to.includes('left@example.net'))).toBe(false)
  })
})

describe('an email read back', () => {
  test('says for each recipient how its delivery went: state, attempts, last reply, MX, address, TLS and DKIM domains', async () => {
    const sent = await send({ to: ['tls2@strict.example', 'unknown2@strict.example'], cc: 'later@nowhere-yet.example' })
    await w.deliver()
    const email = await emailOf(sent.body.emailId)
    const byRecipient = Object.fromEntries(email.deliveries.map((d: any) => [d.recipient, d]))
    expect(byRecipient['tls2@strict.example']).toEqual({
      recipient: 'tls2@strict.example',
      state: 'delivered',
      attempts: 1,
      lastResponse: expect.stringMatching(/^250/),
      mx: 'mx.strict.example',
      ip: '127.0.0.3',
      tls: { version: expect.stringMatching(/^TLSv1\.[23]$/), cipher: expect.any(String), verified: false },
      dkimDomains: ['sender.example.com'],
      nextAttemptAt: null,
      updatedAt: expect.any(String),
    })
    expect(byRecipient['unknown2@strict.example']).toMatchObject({ state: 'bounced', attempts: 1, lastResponse: expect.stringContaining('5.1.1'), mx: 'mx.strict.example' })
    expect(byRecipient['later@nowhere-yet.example']).toMatchObject({ state: 'bounced', mx: null, ip: null, tls: null })
  })
})

describe('an email downloaded (GET /api/v1/emails/{id}/raw)', () => {
  const raw = (id: string, key = w.key) => w.t.app.handle(new Request(`http://localhost/api/v1/emails/${id}/raw`, { headers: { authorization: `Bearer ${key}` } }))

  test('is the bytes its recipients got: the DKIM signature, then the message', async () => {
    const sent = await send({ to: 'raw@example.net' })
    const before = await raw(sent.body.emailId)
    expect(before.status).toBe(200)
    expect(before.headers.get('content-type')).toBe('message/rfc822')
    expect(before.headers.get('content-disposition')).toBe(`attachment; filename="${sent.body.emailId}.eml"`)
    // Not signed before its first attempt.
    expect(await before.text()).not.toContain('DKIM-Signature')
    await w.deliver()
    const after = Buffer.from(await (await raw(sent.body.emailId)).arrayBuffer())
    const received = w.mx.received.find((m) => m.to.includes('raw@example.net'))!
    expect(after.toString()).toStartWith('DKIM-Signature:')
    // What arrived is what the download holds, after the lines the receiving side adds.
    expect(received.raw.toString().endsWith(after.toString())).toBe(true)
  })

  test("another project's email or none is a 404; one whose body retention deleted is a 410", async () => {
    const sent = await send({ to: 'gone@example.net' })
    expect((await raw(sent.body.emailId, (await w.t.project('Other')).secretKey)).status).toBe(404)
    expect((await raw('no-such-email')).status).toBe(404)
    await w.t.app.db.deleteFrom('email_contents').where('email_id', '=', sent.body.emailId).execute()
    const gone = await raw(sent.body.emailId)
    expect(gone.status).toBe(410)
    expect(((await gone.json()) as { message: string }).message).toContain('retention')
  })
})
