// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { UseSend } from 'usesend-js'
import { createDeliveryCaller } from '../../src/core/webhooks/caller.ts'
import { claimDeliveries } from '../../src/core/webhooks/webhook-deliveries.repository.ts'
import { createWebhookDispatcher } from '../../src/workers/webhook-dispatcher.ts'
import { silentLogger } from '../../src/lib/logger.ts'
import { verifySignature } from '../../src/lib/outbound/signature.ts'
import { createTestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'
import { SECRET } from '../helpers/sending.ts'
import { createHook, startHookServer, until, type HookServer } from '../helpers/webhooks.ts'
import { waitFor } from '../helpers/until.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { Holdings } from '../../src/db/claims.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

checkAnswersAgainstDocument()

const MINUTE = 60_000
const clock = new ManualClock(Date.parse('2026-11-05T10:00:00Z'))
let w: World
let hooks: HookServer
let projects = 0

beforeAll(async () => {
  w = await createWorld({ clock, settings: { 'webhook-allow-private-targets': 'true' } })
  hooks = startHookServer()
})

afterAll(async () => {
  hooks.release()
  await w.close()
  hooks.stop()
})

const api = (key: string, method: string, path: string, body?: unknown) => w.t.request(method, path, { key, body })
const newProject = async () => (await w.t.project(`Hooked ${++projects}`)).secretKey
const drain = () => w.t.app.webhooks.drain()
const addContact = (key: string, email: string, data?: Record<string, unknown>) => api(key, 'POST', '/contacts', { email, ...(data && { data }) })
const deliveriesOf = async (key: string, id: string, query = '') => (await api(key, 'GET', `/webhooks/${id}/deliveries${query}`)).body

describe('the webhooks API', () => {
  test('POST answers 201 with the webhook and its signing secret, which nothing shows again', async () => {
    const key = await newProject()
    const created = await api(key, 'POST', '/webhooks', { url: `${hooks.base}/ok/crud`, events: ['email.sent', 'contact.created'] })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(String),
      url: `${hooks.base}/ok/crud`,
      events: ['email.sent', 'contact.created'],
      enabled: true,
      disabledReason: null,
      consecutiveFailures: 0,
      createdAt: '2026-11-05T10:00:00.000Z',
      updatedAt: '2026-11-05T10:00:00.000Z',
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    })
    const { secret, ...shown } = created.body
    expect((await api(key, 'GET', `/webhooks/${created.body.id}`)).body).toEqual(shown)
    expect((await api(key, 'GET', '/webhooks')).body.webhooks).toEqual([shown])
    const stored = await w.t.app.db.selectFrom('webhooks').select('signing_secret').where('id', '=', created.body.id).executeTakeFirstOrThrow()
    expect(stored.signing_secret).not.toContain(secret)
  })

  test('GET lists newest first by pages; PATCH changes what it is given; DELETE removes it', async () => {
    const key = await newProject()
    const ids = []
    for (const name of ['a', 'b', 'c']) ids.push((await createHook(w, key, `${hooks.base}/ok/${name}`)).id)
    const page = (await api(key, 'GET', '/webhooks?page=1&pageSize=2')).body
    expect(page.webhooks.map((h: { id: string }) => h.id)).toEqual([ids[2], ids[1]])
    expect(page).toMatchObject({ page: 1, pageSize: 2, total: 3 })
    const changed = await api(key, 'PATCH', `/webhooks/${ids[0]}`, { events: ['domain.verified', 'domain.failed'], enabled: false })
    expect(changed.body).toMatchObject({ url: `${hooks.base}/ok/a`, events: ['domain.verified', 'domain.failed'], enabled: false })
    expect((await api(key, 'PATCH', `/webhooks/${ids[0]}`, { url: `${hooks.base}/ok/z` })).body).toMatchObject({ url: `${hooks.base}/ok/z`, enabled: false })
    expect((await api(key, 'PATCH', `/webhooks/${ids[0]}`, {})).status).toBe(422)
    expect((await api(key, 'DELETE', `/webhooks/${ids[0]}`)).body).toEqual({ id: ids[0], success: true, message: 'Webhook deleted' })
    expect((await api(key, 'GET', `/webhooks/${ids[0]}`)).status).toBe(404)
    expect((await api(await newProject(), 'GET', `/webhooks/${ids[1]}`)).status).toBe(404)
  })

  test.each([
    ['no event types', { events: [] }, 'events'],
    ['an unknown event type', { events: ['email.sent', 'email.sending'] }, 'events.1'],
    ['an ftp URL', { url: 'ftp://127.0.0.1/in' }, 'url'],
    ['a URL with credentials', { url: 'http://user:pw@127.0.0.1/in' }, 'url'],
    ['no URL at all', { url: 'not a url' }, 'url'],
    ['an unknown field', { secret: 'mine' }, 'secret'],
  ])('%s is a 422 naming the field', async (_, change, field) => {
    const answer = await api(w.key, 'POST', '/webhooks', { url: `${hooks.base}/ok`, events: ['*'], ...change })
    expect(answer.status).toBe(422)
    expect(answer.body.errors.map((e: { field: string }) => e.field)).toContain(field)
  })

  test('a URL to a loopback, private or link-local address is refused unless the server allows private targets', async () => {
    const strict = await createTestApp()
    try {
      const { secretKey } = await strict.project()
      for (const [url, kind] of [
        ['http://127.0.0.1:8080/hook', 'a loopback address'],
        ['http://10.1.2.3/hook', 'a private address'],
        ['http://169.254.169.254/latest', 'a link-local address'],
        ['http://[::1]/hook', 'a loopback address'],
        ['http://localhost:3000/hook', 'a loopback name'],
      ]) {
        const answer = await strict.request('POST', '/webhooks', { key: secretKey, body: { url, events: ['*'] } })
        expect([url, answer.status]).toEqual([url, 422])
        expect(answer.body.errors[0].field).toBe('url')
        expect(answer.body.errors[0].message).toContain(kind)
        expect(answer.body.errors[0].message).toContain('MAILSTEAD_WEBHOOK_ALLOW_PRIVATE_TARGETS=true')
      }
      const public1 = await strict.request('POST', '/webhooks', { key: secretKey, body: { url: 'https://93.184.215.14/hook', events: ['*'] } })
      expect(public1.status).toBe(201)
      const moved = await strict.request('PATCH', `/webhooks/${public1.body.id}`, { key: secretKey, body: { url: 'http://192.168.1.1/' } })
      expect(moved.status).toBe(422)
      expect(moved.body.errors[0].field).toBe('url')
    } finally {
      await strict.close()
    }
  })

  test('a project has at most 20 webhooks', async () => {
    const key = await newProject()
    for (let i = 0; i < 20; i++) await createHook(w, key, `${hooks.base}/ok/many${i}`)
    const answer = await api(key, 'POST', '/webhooks', { url: `${hooks.base}/ok/one-more`, events: ['*'] })
    expect(answer.status).toBe(409)
  })
})

describe('calls', () => {
  test('an email sent reaches the webhook as email.queued, email.sent and email.delivered, each signed with its secret', async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/ok/mail`, ['email.queued', 'email.sent', 'email.delivered'])
    const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to: 'bob@example.net', subject: 'Hi', html: '<p>Hi</p>' } })
    await w.deliver()
    await drain()
    const calls = hooks.to('/ok/mail')
    expect(calls.map((c) => c.payload.type)).toEqual(['email.queued', 'email.sent', 'email.delivered'])
    for (const call of calls) {
      expect(verifySignature(hook.secret, call.headers, call.body, Date.now())).toBe(true)
      expect(verifySignature(hook.secret, call.headers, call.body.replace('bob', 'eve'), Date.now())).toBe(false)
      expect(call.headers.get('x-mailstead-id')).toBe(call.payload.id)
      expect(call.headers.get('content-type')).toBe('application/json')
      expect(call.headers.get('user-agent')).toBe('Mailstead-Webhooks/1')
      expect(Object.keys(call.payload)).toEqual(['id', 'type', 'createdAt', 'data'])
      expect(call.payload.data).toMatchObject({ emailId: sent.body.emailId, from: 'ada@sender.example.com', to: ['bob@example.net'], subject: 'Hi', campaignId: null })
    }
    expect(calls[0]!.payload.data).toMatchObject({ status: 'QUEUED', recipient: null })
    expect(calls[2]!.payload.data).toMatchObject({ status: 'DELIVERED', recipient: 'bob@example.net', details: { smtpCode: 250, mx: 'mx.example.net', attempt: 1 } })
    await api(w.key, 'DELETE', `/webhooks/${hook.id}`)
  })

  test("usesend-js's webhooks(secret) verifies and parses every call, and refuses one changed or signed with another secret", async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/ok/usesend`, ['email.queued', 'email.sent', 'email.delivered'])
    const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to: 'bob@example.net', subject: 'Hi', html: '<p>Hi</p>' } })
    await w.deliver()
    await drain()
    const webhooks = new UseSend('us_not_used', 'http://127.0.0.1:1').webhooks(hook.secret)
    const calls = hooks.to('/ok/usesend')
    expect(calls).toHaveLength(3)
    for (const call of calls) {
      const event = webhooks.constructEvent(call.body, { headers: call.headers })
      expect(event).toEqual(call.payload)
      expect(call.headers.get('x-usesend-event')).toBe(call.payload.type)
      expect(call.headers.get('x-usesend-call')).toBe(call.payload.id)
      expect(webhooks.verify(call.body.replace('bob', 'eve'), { headers: call.headers })).toBe(false)
      expect(new UseSend('us_not_used', 'http://127.0.0.1:1').webhooks('another-secret-of-enough-length-0123456').verify(call.body, { headers: call.headers })).toBe(false)
    }
    const delivered = webhooks.constructEvent(calls[2]!.body, { headers: calls[2]!.headers })
    expect(delivered.type).toBe('email.delivered')
    if (delivered.type !== 'email.delivered') throw new Error('narrowed above')
    expect(delivered.data).toMatchObject({ id: sent.body.emailId, status: 'DELIVERED', from: 'ada@sender.example.com', to: ['bob@example.net'], subject: 'Hi', occurredAt: expect.any(String) })
    await api(w.key, 'DELETE', `/webhooks/${hook.id}`)
  })

  test('POST /contacts is contact.created; an update is contact.updated only when something changed', async () => {
    const key = await newProject()
    await createHook(w, key, `${hooks.base}/ok/contacts`, ['contact.created', 'contact.updated', 'contact.unsubscribed'])
    const created = await addContact(key, 'Jane@Example.net', { plan: 'pro' })
    await addContact(key, 'jane@example.net', { plan: 'pro' })
    await api(key, 'PATCH', `/contacts/${created.body.id}`, { data: { plan: 'team' } })
    await api(key, 'PATCH', `/contacts/${created.body.id}`, { subscribed: false })
    await drain()
    const calls = hooks.to('/ok/contacts')
    expect(calls.map((c) => c.payload.type)).toEqual(['contact.created', 'contact.updated', 'contact.updated', 'contact.unsubscribed'])
    expect(calls[0]!.payload.data).toEqual({
      id: created.body.id,
      email: 'Jane@Example.net',
      subscribed: true,
      data: { plan: 'pro' },
      properties: { plan: 'pro' },
      firstName: null,
      lastName: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect(calls[1]!.payload.data.data).toEqual({ plan: 'team' })
    expect(calls[3]!.payload.data).toMatchObject({ subscribed: false, source: 'update' })
  })

  test('an endpoint answering 500 is called six times over about an hour with the same id, then the delivery fails', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/fail/always`, ['contact.created'])
    await addContact(key, 'retry@example.net')
    await drain()
    const made = [hooks.to('/fail/always').length]
    for (const minutes of [1, 5, 10, 20, 30]) {
      clock.advance(minutes * MINUTE - 1)
      await drain()
      made.push(hooks.to('/fail/always').length)
      clock.advance(1)
      await drain()
      made.push(hooks.to('/fail/always').length)
    }
    clock.advance(3 * 60 * MINUTE)
    await drain()
    expect(made).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6])
    const calls = hooks.to('/fail/always')
    expect(calls).toHaveLength(6)
    expect(new Set(calls.map((c) => c.headers.get('x-mailstead-id'))).size).toBe(1)
    expect(new Set(calls.map((c) => c.body)).size).toBe(1)
    const [delivery] = (await deliveriesOf(key, hook.id)).deliveries
    expect(delivery).toMatchObject({ state: 'failed', attempts: 6, nextAttemptAt: null, lastStatus: 500, lastError: 'the endpoint answered 500', lastResponseBody: 'broken', type: 'contact.created' })
  })

  test('thirty failed calls in a row disable the webhook; its deliveries wait, and enabling it sends them', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/switch/dead`, ['contact.created'])
    for (let i = 0; i < 30; i++) await addContact(key, `dead${i}@example.net`)
    await drain()
    expect(hooks.to('/switch/dead')).toHaveLength(30)
    const disabled = (await api(key, 'GET', `/webhooks/${hook.id}`)).body
    expect(disabled).toMatchObject({ enabled: false, consecutiveFailures: 30 })
    expect(disabled.disabledReason).toContain('30 failed calls in a row; the last: the endpoint answered 503')
    const waiting = (await deliveriesOf(key, hook.id, '?pageSize=100')).deliveries
    expect(waiting.map((d: { state: string }) => d.state)).toEqual(Array(30).fill('paused'))
    await addContact(key, 'while-disabled@example.net')
    clock.advance(60 * MINUTE)
    await drain()
    expect(hooks.to('/switch/dead')).toHaveLength(30)
    hooks.state.switchOk = true
    expect((await api(key, 'PATCH', `/webhooks/${hook.id}`, { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0 })
    await drain()
    expect(hooks.to('/switch/dead')).toHaveLength(60)
    const states = (await deliveriesOf(key, hook.id, '?pageSize=100')).deliveries.map((d: { state: string }) => d.state)
    expect(states).toEqual(Array(30).fill('delivered'))
  })

  test('a success clears the failures in a row', async () => {
    const key = await newProject()
    const failing = await createHook(w, key, `${hooks.base}/fail/sometimes`, ['contact.created'])
    await addContact(key, 'one@example.net')
    await drain()
    expect((await api(key, 'GET', `/webhooks/${failing.id}`)).body.consecutiveFailures).toBe(1)
    await api(key, 'PATCH', `/webhooks/${failing.id}`, { url: `${hooks.base}/ok/sometimes` })
    clock.advance(MINUTE)
    await drain()
    expect((await api(key, 'GET', `/webhooks/${failing.id}`)).body).toMatchObject({ consecutiveFailures: 0, enabled: true })
    expect((await deliveriesOf(key, failing.id)).deliveries[0]).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 200, lastError: null })
  })

  test('an endpoint that hangs holds a few places only: another webhook gets every call meanwhile', async () => {
    const key = await newProject()
    await createHook(w, key, `${hooks.base}/hang/slow`, ['contact.created'])
    await createHook(w, key, `${hooks.base}/ok/quick`, ['contact.created'])
    for (let i = 0; i < 12; i++) await addContact(key, `busy${i}@example.net`)
    const draining = drain()
    await until(() => hooks.to('/ok/quick').length === 12, 'the quick endpoint to get every call')
    expect(hooks.to('/hang/slow').length).toBeGreaterThan(0)
    expect(hooks.to('/hang/slow').length).toBeLessThanOrEqual(8)
    hooks.release()
    await draining
    expect(hooks.to('/hang/slow')).toHaveLength(12)
  })

  test('a redirect is a failure that says where it pointed; nothing follows it', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/redirect`, ['contact.created'])
    await addContact(key, 'redirected@example.net')
    await drain()
    expect((await deliveriesOf(key, hook.id)).deliveries[0]).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastStatus: 302,
      lastError: 'the endpoint redirected (302) to http://127.0.0.1:1/elsewhere; redirects are not followed',
    })
  })

  test('an endpoint that answers without end is cut off after the first 64 KiB', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/endless`, ['contact.created'])
    await addContact(key, 'flooded@example.net')
    await drain()
    expect((await deliveriesOf(key, hook.id)).deliveries[0]).toMatchObject({ state: 'delivered', lastStatus: 200 })
  })

  test('deliveries are listed newest first, with the payload, the attempts and the last answer', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/ok/listed`, ['contact.created'])
    for (const email of ['first@example.net', 'second@example.net', 'third@example.net']) await addContact(key, email)
    await drain()
    const page = await deliveriesOf(key, hook.id, '?page=1&pageSize=2')
    expect(page).toMatchObject({ page: 1, pageSize: 2, total: 3 })
    expect(page.deliveries.map((d: any) => d.payload.data.email)).toEqual(['third@example.net', 'second@example.net'])
    expect(page.deliveries[0]).toEqual({
      id: expect.any(String),
      eventId: page.deliveries[0].payload.id,
      type: 'contact.created',
      state: 'delivered',
      attempts: 1,
      nextAttemptAt: null,
      lastAttemptAt: expect.any(String),
      lastStatus: 200,
      lastError: null,
      lastDurationMs: expect.any(Number),
      lastResponseBody: 'ok',
      payload: { id: expect.any(String), type: 'contact.created', createdAt: expect.any(String), data: expect.objectContaining({ email: 'third@example.net' }) },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expect((await deliveriesOf(key, hook.id, '?page=2&pageSize=2')).deliveries).toHaveLength(1)
    expect((await api(await newProject(), 'GET', `/webhooks/${hook.id}/deliveries`)).status).toBe(404)
  })

  test('a delivered or failed delivery replayed is called again with the same payload and id; a waiting one, a disabled webhook or another project refuse', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/ok/replayed`, ['contact.created'])
    await addContact(key, 'replayed@example.net')
    await drain()
    const [delivered] = (await deliveriesOf(key, hook.id)).deliveries
    const replay = (k = key, id = delivered.id, webhookId = hook.id) => api(k, 'POST', `/webhooks/${webhookId}/deliveries/${id}/replay`)
    const replayed = await replay()
    expect(replayed.status).toBe(200)
    expect(replayed.body).toMatchObject({ id: delivered.id, eventId: delivered.eventId, state: 'pending', attempts: 0 })
    // Waiting to be called: a second replay has nothing to do.
    expect((await replay()).status).toBe(409)
    await drain()
    const calls = hooks.to('/ok/replayed')
    expect(calls).toHaveLength(2)
    expect(calls[1]!.body).toBe(calls[0]!.body)
    expect(calls[1]!.headers.get('x-mailstead-id')).toBe(delivered.eventId)
    expect((await deliveriesOf(key, hook.id)).deliveries[0]).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200 })
    expect((await replay(await newProject())).status).toBe(404)
    expect((await replay(key, 'no-such-delivery')).status).toBe(404)
    await api(key, 'PATCH', `/webhooks/${hook.id}`, { enabled: false })
    const disabled = await replay()
    expect(disabled.status).toBe(409)
    expect(disabled.body.message).toContain('disabled')
    expect(hooks.to('/ok/replayed')).toHaveLength(2)
  })

  test('a webhook takes only the types it asked for; "*" takes all; a disabled one takes none', async () => {
    const key = await newProject()
    await createHook(w, key, `${hooks.base}/ok/only-updates`, ['contact.updated'])
    await createHook(w, key, `${hooks.base}/ok/everything`, ['*'])
    await createHook(w, key, `${hooks.base}/ok/off`, ['*'], { enabled: false })
    const created = await addContact(key, 'types@example.net')
    await api(key, 'PATCH', `/contacts/${created.body.id}`, { data: { x: 1 } })
    await drain()
    expect(hooks.to('/ok/only-updates').map((c) => c.payload.type)).toEqual(['contact.updated'])
    expect(hooks.to('/ok/everything').map((c) => c.payload.type)).toEqual(['contact.created', 'contact.updated'])
    expect(hooks.to('/ok/off')).toEqual([])
  })

  test('one event has one id for every webhook that receives it', async () => {
    const key = await newProject()
    await createHook(w, key, `${hooks.base}/ok/twin-a`, ['contact.created'])
    await createHook(w, key, `${hooks.base}/ok/twin-b`, ['contact.created'])
    await addContact(key, 'twins@example.net')
    await drain()
    expect(hooks.to('/ok/twin-a')[0]!.body).toBe(hooks.to('/ok/twin-b')[0]!.body)
  })

  test('after a rotation each call is signed with both secrets while the overlap lasts, then with the new one', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/ok/rotated`, ['contact.created'])
    const rotated = await api(key, 'POST', `/webhooks/${hook.id}/rotate-secret`, { overlapHours: 1 })
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), previousSecretExpiresAt: new Date(clock.now() + 3_600_000).toISOString() })
    await addContact(key, 'rotation@example.net')
    await drain()
    const [during] = hooks.to('/ok/rotated')
    expect(verifySignature(hook.secret, during!.headers, during!.body, Date.now())).toBe(true)
    expect(verifySignature(rotated.body.secret, during!.headers, during!.body, Date.now())).toBe(true)
    clock.advance(3_600_001)
    await addContact(key, 'rotation2@example.net')
    await drain()
    const after = hooks.to('/ok/rotated')[1]!
    expect(verifySignature(hook.secret, after.headers, after.body, Date.now())).toBe(false)
    expect(verifySignature(rotated.body.secret, after.headers, after.body, Date.now())).toBe(true)
    const now = await api(key, 'POST', `/webhooks/${hook.id}/rotate-secret`)
    expect(now.body.previousSecretExpiresAt).toBe(new Date(clock.now() + 24 * 3_600_000).toISOString())
    const cut = await api(key, 'POST', `/webhooks/${hook.id}/rotate-secret`, { overlapHours: 0 })
    expect(cut.body.previousSecretExpiresAt).toBeNull()
  })

  test('started, the dispatcher calls as soon as an event is written, and its timer finds retries that came due', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/switch/started`, ['contact.created'])
    hooks.state.switchOk = false
    w.t.app.webhooks.start()
    try {
      const started = performance.now()
      await addContact(key, 'live@example.net')
      await until(() => hooks.to('/switch/started').length === 1, 'the first call')
      expect(performance.now() - started).toBeLessThan(900)
      // The endpoint has answered, but the dispatcher may not have recorded the failure yet: a
      // clock moved before that would put the retry a minute past the moved clock.
      await waitFor(async () => (await deliveriesOf(key, hook.id)).deliveries[0]?.lastStatus === 503, 'the failure to be recorded')
      hooks.state.switchOk = true
      clock.advance(MINUTE)
      await until(() => hooks.to('/switch/started').length === 2, 'the retry')
    } finally {
      await w.t.app.webhooks.stop()
    }
    expect((await deliveriesOf(key, hook.id)).deliveries[0]).toMatchObject({ state: 'delivered', attempts: 2 })
  })

  test('a call that outlives its deadline is cut off, and tried again later', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/never`, ['contact.created'])
    await addContact(key, 'patient@example.net')
    const hasty = createWebhookDispatcher({
      db: w.t.app.db,
      write: w.t.app.writer.run,
      clock,
      logger: silentLogger,
      serverSecret: SECRET,
      call: createDeliveryCaller({ allowPrivate: true, resolve: async () => [] }, 300),
      settings: { concurrency: 4, perWebhook: 2, perFailingWebhook: 1, pollMs: 1000, keepFinishedMs: 86_400_000 },
      claimant: { owner: 'a hasty process', leaseMs: 60_000, write: w.t.app.writer.run, held: new Holdings() },
    })
    const started = performance.now()
    await hasty.drain()
    expect(performance.now() - started).toBeLessThan(3000)
    expect((await deliveriesOf(key, hook.id)).deliveries[0]).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null, lastError: 'timed out after 300 ms' })
    await api(key, 'DELETE', `/webhooks/${hook.id}`)
  })

  test('a delivery taken by a dispatcher that died before recording it is called again after its lease, with the same id', async () => {
    const key = await newProject()
    const hook = await createHook(w, key, `${hooks.base}/ok/crash`, ['contact.created'])
    await addContact(key, 'survivor@example.net')
    const { id } = await w.t.app.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hook.id).executeTakeFirstOrThrow()
    await w.t.app.writer.run((trx) => claimDeliveries(trx, { owner: 'a process that died', leaseMs: MINUTE }, [id], clock.now()))
    await w.t.restart()
    await w.t.app.claims.keep()
    await drain()
    expect(hooks.to('/ok/crash')).toHaveLength(0)
    clock.advance(MINUTE)
    await w.t.app.claims.keep()
    await drain()
    const [call] = hooks.to('/ok/crash')
    expect(call!.payload.data.email).toBe('survivor@example.net')
    expect((await deliveriesOf(key, hook.id)).deliveries[0]).toMatchObject({ state: 'delivered', attempts: 1, eventId: call!.payload.id })
  })

  test('finished deliveries are deleted after 30 days; waiting ones stay however old', async () => {
    const key = await newProject()
    const done = await createHook(w, key, `${hooks.base}/ok/old`, ['contact.created'])
    const waiting = await createHook(w, key, `${hooks.base}/fail/old`, ['contact.created'])
    await addContact(key, 'old@example.net')
    await drain()
    await api(key, 'PATCH', `/webhooks/${waiting.id}`, { enabled: false })
    clock.advance(30 * 24 * 60 * MINUTE)
    await w.t.app.webhooks.prune()
    expect((await deliveriesOf(key, done.id)).total).toBe(1)
    clock.advance(1)
    await w.t.app.webhooks.prune()
    expect((await deliveriesOf(key, done.id)).total).toBe(0)
    expect((await deliveriesOf(key, waiting.id)).deliveries.map((d: { state: string }) => d.state)).toEqual(['paused'])
  })
})
