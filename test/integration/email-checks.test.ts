// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * GET /api/v1/emails/{emailId}/checks: what a receiving server would check on the message as its
 * recipients got it, run on the stored signed message, with DKIM keys from Mailstead's database
 * and no DNS query at all.
 */

let w: World

interface Check {
  id: string
  name: string
  status: string
  detail: string
}

const send = async (body: Record<string, unknown>) =>
  (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'Shop <shop@sender.example.com>', to: 'jane@example.net', subject: 'Your receipt', ...body } })).body.emailId as string

const checksOf = async (id: string, key = w.key) => w.t.request('GET', `/api/v1/emails/${id}/checks`, { key })

const byId = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.id, c]))

beforeAll(async () => {
  w = await createWorld()
})

afterAll(() => w.close())

describe("an email's receiver checks", () => {
  test('before its first attempt: not signed yet; the envelope sender is already known', async () => {
    const id = await send({ text: 'Thanks' })
    const answer = await checksOf(id)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ emailId: id, signed: false })
    const checks = byId(answer.body.checks)
    expect(checks.dkim).toMatchObject({ status: 'info', detail: expect.stringContaining('Not signed yet') })
    expect(checks['return-path']).toMatchObject({ status: 'pass', detail: expect.stringMatching(/^bounces\+[a-z0-9-]+@/) })
  })

  test('once delivered: DKIM passes with the key the verified domain publishes, and the envelope is what the MX saw', async () => {
    const html = '<p>Thanks! <a href="https://shop.example/orders/1">Your order</a></p>'
    const id = await send({ to: 'receipt@example.net', html, text: 'Thanks! Your order: https://shop.example/orders/1' })
    await w.deliver()
    const received = w.mx.received.find((m) => m.to.includes('receipt@example.net'))!
    const queriesBefore = w.dns.queries.length
    const answer = await checksOf(id)
    expect(w.dns.queries.length).toBe(queriesBefore)
    expect(answer.body.signed).toBe(true)
    const checks = byId(answer.body.checks)
    // The same verdict as a receiver asking DNS.
    expect((await w.dkim(received.raw)).map((r) => r.status)).toEqual(['pass', 'pass'])
    const dkim = (answer.body.checks as Check[]).filter((c) => c.id === 'dkim')
    expect(dkim.map((c) => c.status)).toEqual(['pass', 'pass'])
    expect(dkim[0]!.name).toContain('d=sender.example.com')
    expect(checks['dkim-alignment']!.status).toBe('pass')
    expect(checks['dkim-headers']!.detail).toContain('h=')
    expect(checks['message-id']).toMatchObject({ status: 'pass', detail: `<${id}@sender.example.com>` })
    expect(checks.date!.status).toBe('pass')
    expect(checks['text-part']!.status).toBe('pass')
    expect(checks.tracking!.status).toBe('pass')
    expect(checks['list-unsubscribe']!.status).toBe('info')
    expect(checks['feedback-id']!.status).toBe('info')
    expect(checks['return-path']).toMatchObject({ status: 'pass', detail: expect.stringContaining(received.from) })
    for (const check of answer.body.checks as Check[]) expect(['pass', 'warn', 'fail', 'info']).toContain(check.status)
  })

  test('tracking asked for on transactional mail fails; a text part missing a link warns', async () => {
    const id = await send({ to: 'tracked@example.net', html: '<p><a href="https://shop.example/a">A</a></p>', text: 'No links here', trackOpens: true, trackClicks: true })
    await w.deliver()
    const checks = byId((await checksOf(id)).body.checks)
    expect(checks.tracking).toMatchObject({ status: 'fail', detail: expect.stringContaining('1 tracking pixel and 1 rewritten link') })
    expect(checks['text-part']).toMatchObject({ status: 'warn', detail: expect.stringContaining('https://shop.example/a') })
    expect(checks.dkim!.status).toBe('pass')
  })

  test('a message changed after signing fails DKIM', async () => {
    const id = await send({ to: 'changed@example.net', text: 'Original words' })
    await w.deliver()
    const { mime } = (await w.t.app.db.selectFrom('email_contents').select('mime').where('email_id', '=', id).executeTakeFirstOrThrow())
    const changed = Buffer.from(Buffer.from(mime).toString('latin1').replace('Original', 'Different'), 'latin1')
    await w.t.app.db.updateTable('email_contents').set({ mime: changed }).where('email_id', '=', id).execute()
    const dkim = ((await checksOf(id)).body.checks as Check[]).filter((c) => c.id === 'dkim')
    expect(dkim.map((c) => c.status)).toEqual(['fail', 'fail'])
    expect(dkim[0]!.detail).toContain('body hash')
  })

  test("another project's email or none is a 404; one whose message retention deleted is a 410", async () => {
    const id = await send({ text: 'Hi' })
    expect((await checksOf(id, (await w.t.project('Other')).secretKey)).status).toBe(404)
    expect((await checksOf('no-such-email')).status).toBe(404)
    await w.t.app.db.deleteFrom('email_contents').where('email_id', '=', id).execute()
    const gone = await checksOf(id)
    expect(gone.status).toBe(410)
    expect(gone.body.message).toContain('retention')
  })
})
