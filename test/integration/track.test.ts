// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'

let t: TestApp
let keys: { secretKey: string; publicKey: string; id: number }
const clock = new ManualClock()

beforeAll(async () => {
  t = await createTestApp({}, { clock })
  keys = await t.project()
})

afterAll(() => t.close())

const track = (body: unknown, key = keys.secretKey) => t.request('POST', '/v1/track', { key, body })
const contactOf = (id: string) => t.request('GET', `/contacts/${id}`, { key: keys.secretKey })
const eventsOf = (contactId: string) =>
  t.app.db.selectFrom('events').selectAll().where('contact_id', '=', contactId).orderBy('id').execute()

describe('POST /v1/track', () => {
  test('a one-shot value ({value, persistent: false}) reaches the event but is not kept on the contact', async () => {
    const response = await track({ email: 'buyer@example.com', event: 'purchase', data: { plan: 'pro', orderId: { value: 'ord_123', persistent: false } } })
    expect(response.status).toBe(200)
    const contact = await contactOf(response.body.data.contact)
    expect(contact.body.data).toEqual({ plan: 'pro' })
    const [event] = await eventsOf(response.body.data.contact)
    expect(JSON.parse(String(event!.data))).toEqual({ plan: 'pro', orderId: 'ord_123' })
    // An object that merely has a `persistent` key, or more keys than the two, is ordinary data.
    await track({ email: 'buyer@example.com', event: 'note', data: { flags: { persistent: false, value: 1, extra: true } } })
    expect((await contactOf(response.body.data.contact)).body.data).toEqual({ plan: 'pro', flags: { persistent: false, value: 1, extra: true } })
  })

  test('preserveExistingSubscription applies `subscribed` to a new contact only', async () => {
    const created = await track({ email: 'optin@example.com', event: 'signup', subscribed: false, preserveExistingSubscription: true })
    expect((await contactOf(created.body.data.contact)).body.subscribed).toBe(false)
    const confirmed = await track({ email: 'optin@example.com', event: 'confirmed', subscribed: true })
    expect((await contactOf(confirmed.body.data.contact)).body.subscribed).toBe(true)
    // Tracked again with the same call: the confirmed contact stays subscribed.
    await track({ email: 'optin@example.com', event: 'signup', subscribed: false, preserveExistingSubscription: true })
    expect((await contactOf(created.body.data.contact)).body.subscribed).toBe(true)
    // Without it, an absent `subscribed` still means true, as before.
    const bad = await track({ email: 'optin@example.com', event: 'x', preserveExistingSubscription: 'yes' })
    expect(bad.status).toBe(422)
  })

  test('creates the contact, subscribed, with the data, records the event, and answers with ids', async () => {
    const response = await track({ email: 'Jane@Example.com', event: 'signup', data: { plan: 'pro' } })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      success: true,
      data: { contact: expect.any(String), event: 'signup', timestamp: new Date(clock.now()).toISOString() },
    })
    const contact = await contactOf(response.body.data.contact)
    expect(contact.body).toMatchObject({ email: 'Jane@Example.com', subscribed: true, data: { plan: 'pro' } })
    const [event] = await eventsOf(response.body.data.contact)
    expect(event).toMatchObject({ project_id: keys.id, name: 'signup', data: '{"plan":"pro"}', created_at: clock.now() })
  })

  test('updates the same contact by email, merging data, and sets subscribed back to true when absent', async () => {
    const first = await track({ email: 'sam@example.com', event: 'signup', subscribed: false, data: { a: 1, b: 2 } })
    expect((await contactOf(first.body.data.contact)).body.subscribed).toBe(false)
    clock.advance(1000)
    const second = await track({ email: 'SAM@example.com', event: 'purchase', data: { b: null, c: 3 } })
    expect(second.body.data.contact).toBe(first.body.data.contact)
    const contact = (await contactOf(first.body.data.contact)).body
    expect(contact).toMatchObject({ subscribed: true, data: { a: 1, c: 3 } })
    expect(contact.updatedAt).not.toBe(contact.createdAt)
    expect((await eventsOf(contact.id)).map((e) => e.name)).toEqual(['signup', 'purchase'])
  })

  test('works with the public key', async () => {
    const response = await track({ email: 'browser@example.com', event: 'page_view' }, keys.publicKey)
    expect(response.status).toBe(200)
  })

  test.each([
    [{ email: 'x@example.com', event: 'email.opened' }, 'event'],
    [{ email: 'x@example.com', event: 'contact.created' }, 'event'],
    [{ email: 'x@example.com', event: 'segment.1.entry' }, 'event'],
    [{ email: 'x@example.com', event: '' }, 'event'],
    [{ email: 'x@example.com', event: 'e'.repeat(101) }, 'event'],
    [{ email: 'x @example.com', event: 'ok' }, 'email'],
    [{ email: 'x@example.com\r\n', event: 'ok' }, 'email'],
    [{ email: 'x@example.com', event: 'ok', data: [1, 2] }, 'data'],
    [{ email: 'x@example.com', event: 'ok', data: 'text' }, 'data'],
    [{ email: 'x@example.com', event: 'ok', subscribed: 'yes' }, 'subscribed'],
  ])('refuses %j with 422 naming %s, and creates nothing', async (body, field) => {
    const response = await track(body)
    expect(response.status).toBe(422)
    expect(response.body.errors.map((e: any) => e.field)).toContain(field)
    const found = await t.app.db.selectFrom('contacts').select('id').where('email_key', '=', 'x@example.com').execute()
    expect(found).toEqual([])
  })

  test('concurrent tracks all commit', async () => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => track({ email: `burst${i % 50}@example.com`, event: 'burst' })),
    )
    expect(responses.every((r) => r.status === 200)).toBe(true)
    const rows = await t.app.db.selectFrom('events').select('id').where('name', '=', 'burst').execute()
    expect(rows).toHaveLength(100)
    const contacts = await t.app.db.selectFrom('contacts').select('id').where('email_key', 'like', 'burst%').execute()
    expect(contacts).toHaveLength(50)
  })
})
