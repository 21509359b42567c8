// @database-incidental: the test calls go through HTTP to a local receiver; the database only holds the webhook
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { EVENT_TYPES } from '../../src/core/webhooks/event-types.ts'
import { createWebhook } from '../../src/core/webhooks/webhooks.service.ts'
import { verifySignature } from '../../src/lib/outbound/signature.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'
import { createHook, startHookServer, type HookServer } from '../helpers/webhooks.ts'

checkAnswersAgainstDocument()

let t: TestApp
let guarded: TestApp
let hooks: HookServer
let key: string

beforeAll(async () => {
  t = await createTestApp({ 'webhook-allow-private-targets': 'true' })
  guarded = await createTestApp()
  hooks = startHookServer()
  key = (await t.project('Hooked')).secretKey
})

afterAll(async () => {
  hooks.release()
  await Promise.all([t.close(), guarded.close()])
  hooks.stop()
})

const testEvent = (id: string, type: string, app = t, as = key) => app.request('POST', `/webhooks/${id}/test`, { key: as, body: { type } })

describe('a test event', () => {
  test('of each type reaches the receiver, signed like a real call, with a sample of the real payload and test: true', async () => {
    const hook = await createHook({ t }, key, `${hooks.base}/ok/test`, ['email.delivered'])
    for (const type of EVENT_TYPES) {
      const answer = await testEvent(hook.id, type)
      expect(answer.status).toBe(200)
      expect(answer.body.ok).toBe(true)
      const call = hooks.calls.at(-1)!
      expect(call.path).toBe('/ok/test')
      expect(call.payload).toMatchObject({ type, test: true, id: expect.any(String), createdAt: expect.any(String) })
      expect(Object.keys(call.payload.data).length).toBeGreaterThanOrEqual(3) // contact.deleted's {id, email, erased} the smallest
      expect(verifySignature(hook.secret, call.headers, call.body, Date.now())).toBe(true)
      expect(call.headers.get('x-mailstead-test')).toBe('true')
      expect(call.headers.get('x-mailstead-id')).toBe(JSON.parse(call.body).id)
      // The answer shows the request as sent and the response as it came.
      expect(answer.body.request).toMatchObject({ method: 'POST', url: `${hooks.base}/ok/test`, body: call.body })
      expect(answer.body.request.headers['x-mailstead-signature']).toBe(call.headers.get('x-mailstead-signature'))
      expect(JSON.stringify(answer.body)).not.toContain(hook.secret)
      expect(answer.body.response).toMatchObject({ status: 200, body: 'ok', truncated: false })
      expect(answer.body.response.headers['content-length']).toBe('2')
      expect(answer.body.error).toBeNull()
    }
  })

  test("an email event's sample names the email, the recipient and what the receiving server said", async () => {
    const hook = await createHook({ t }, key, `${hooks.base}/ok/bounce`)
    await testEvent(hook.id, 'email.bounced')
    const { data } = hooks.to('/ok/bounce').at(-1)!.payload
    expect(data).toMatchObject({ status: 'BOUNCED', recipient: 'jane@example.net', to: ['Jane Doe <jane@example.net>'], details: { smtpCode: 550, hard: true } })
    expect(data.bounce).toEqual({ type: 'Permanent', subType: 'NoEmail', message: '550 5.1.1 No such user' })
  })

  test('is no delivery: the deliveries log stays empty and a failure does not count towards disabling', async () => {
    const hook = await createHook({ t }, key, `${hooks.base}/fail/test`)
    const answer = await testEvent(hook.id, 'contact.created')
    expect(answer.status).toBe(200)
    expect(answer.body.ok).toBe(false)
    expect(answer.body.response).toMatchObject({ status: 500, body: 'broken' })
    expect(answer.body.error).toContain('500')
    expect((await t.request('GET', `/webhooks/${hook.id}/deliveries`, { key })).body.total).toBe(0)
    expect((await t.request('GET', `/webhooks/${hook.id}`, { key })).body.consecutiveFailures).toBe(0)
  })

  test('answers only the first KB of a long response, and says so', async () => {
    const hook = await createHook({ t }, key, `${hooks.base}/endless`)
    const answer = await testEvent(hook.id, 'domain.verified')
    expect(answer.body.response.body.length).toBe(1024)
    expect(answer.body.response.truncated).toBe(true)
  })

  test('an unknown type is refused with the list; another project\'s webhook is not found', async () => {
    const hook = await createHook({ t }, key, `${hooks.base}/ok/types`)
    const unknown = await testEvent(hook.id, 'email.exploded')
    expect(unknown.status).toBe(422)
    expect(JSON.stringify(unknown.body)).toContain('email.delivered')
    const other = (await t.project('Other')).secretKey
    expect((await testEvent(hook.id, 'email.sent', t, other)).status).toBe(404)
  })

  test('goes through the outbound guard: a private address is refused unless the server allows it', async () => {
    const project = await guarded.project('Guarded')
    // As if the webhook's host had come to resolve to a private address after it was made.
    const hook = await guarded.app.writer.run((trx) => createWebhook(trx, project.id, { url: `${hooks.base}/ok/private`, events: ['*'] } as never, 'test-secret-test-secret-test-secret', Date.now()))
    const before = hooks.to('/ok/private').length
    const answer = await testEvent(hook.id, 'email.sent', guarded, project.secretKey)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({ ok: false, response: null })
    expect(answer.body.error).toMatch(/private|loopback/i)
    expect(hooks.to('/ok/private').length).toBe(before)
  })
})
