// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

checkAnswersAgainstDocument()

let t: TestApp
let key: string

beforeAll(async () => {
  t = await createTestApp()
  key = (await t.project()).secretKey
})

afterAll(() => t.close())

const create = (body: Record<string, unknown>) => t.request('POST', '/contacts', { key, body })

describe('POST /contacts', () => {
  test('creates (201), then updates by email case-insensitively (200), keeping the address as first given', async () => {
    const created = await create({ email: 'Ada.Lovelace@Example.com', data: { plan: 'free', lang: 'en' } })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(String),
      email: 'Ada.Lovelace@Example.com',
      subscribed: true,
      data: { plan: 'free', lang: 'en' },
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    })
    const updated = await create({ email: 'ada.lovelace@example.COM', subscribed: false, data: { plan: 'pro', lang: null } })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ id: created.body.id, email: 'Ada.Lovelace@Example.com', subscribed: false, data: { plan: 'pro' } })
  })

  test('the raw contact comes back from GET /contacts/{id}', async () => {
    const created = await create({ email: 'grace@example.com' })
    const fetched = await t.request('GET', `/contacts/${created.body.id}`, { key })
    expect(fetched.status).toBe(200)
    expect(fetched.body).toEqual(created.body)
  })
})

describe('PATCH /contacts/{id}', () => {
  test('changes email and subscribed, and merges data (null removes a key)', async () => {
    const { body: contact } = await create({ email: 'alan@example.com', data: { a: 1, b: { c: 2 }, gone: true } })
    const patched = await t.request('PATCH', `/contacts/${contact.id}`, {
      key,
      body: { email: 'Alan.Turing@example.com', subscribed: false, data: { gone: null, b: { d: 3 }, e: 'new' } },
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ email: 'Alan.Turing@example.com', subscribed: false, data: { a: 1, b: { c: 2, d: 3 }, e: 'new' } })
    expect(patched.body.data).not.toHaveProperty('gone')
  })

  test('an email that another contact has is a 409 and changes nothing', async () => {
    const { body: one } = await create({ email: 'one@example.com' })
    await create({ email: 'two@example.com' })
    const response = await t.request('PATCH', `/contacts/${one.id}`, { key, body: { email: 'TWO@example.com', subscribed: false } })
    expect(response.status).toBe(409)
    const after = await t.request('GET', `/contacts/${one.id}`, { key })
    expect(after.body).toEqual(one)
  })

  test('an empty patch is a 422', async () => {
    const { body: one } = await create({ email: 'empty-patch@example.com' })
    expect((await t.request('PATCH', `/contacts/${one.id}`, { key, body: {} })).status).toBe(422)
  })
})

describe('DELETE /contacts/{id}', () => {
  test('deletes the contact and its events; a second delete is 404', async () => {
    const tracked = await t.request('POST', '/v1/track', { key, body: { email: 'bye@example.com', event: 'signup' } })
    const id = tracked.body.data.contact
    const deleted = await t.request('DELETE', `/contacts/${id}`, { key })
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({ id, success: true, message: 'Contact deleted' })
    expect((await t.request('GET', `/contacts/${id}`, { key })).status).toBe(404)
    expect((await t.request('DELETE', `/contacts/${id}`, { key })).status).toBe(404)
    expect(await t.app.db.selectFrom('events').where('contact_id', '=', id).selectAll().execute()).toEqual([])
  })
})

describe('GET /contacts', () => {
  let listKey: string

  beforeAll(async () => {
    listKey = (await t.project('Listing')).secretKey
    for (let i = 0; i < 25; i++) {
      await t.request('POST', '/contacts', { key: listKey, body: { email: `user${i}@list.example`, subscribed: i % 5 !== 0 } })
    }
    await t.request('POST', '/contacts', { key: listKey, body: { email: 'odd_100%@list.example' } })
  })

  const list = (query = '') => t.request('GET', `/contacts${query}`, { key: listKey })

  test('pages of 20 by default, newest first, total on the first page only', async () => {
    const first = await list()
    expect(first.status).toBe(200)
    expect(first.body.contacts).toHaveLength(20)
    expect(first.body).toMatchObject({ hasMore: true, total: 26 })
    expect(first.body.contacts[0].email).toBe('odd_100%@list.example')
    const second = await list(`?cursor=${first.body.cursor}`)
    expect(second.body.contacts).toHaveLength(6)
    expect(second.body).toMatchObject({ hasMore: false, cursor: null })
    expect(second.body).not.toHaveProperty('total')
  })

  test('filters by subscribed and by part of the email, case-insensitively', async () => {
    const unsubscribed = await list('?subscribed=false')
    expect(unsubscribed.body.total).toBe(5)
    expect(unsubscribed.body.contacts.every((c: any) => c.subscribed === false)).toBe(true)
    const search = await list('?search=USER1')
    expect(search.body.contacts.map((c: any) => c.email).sort()).toEqual(
      ['user1@list.example', ...Array.from({ length: 10 }, (_, i) => `user1${i}@list.example`)].sort(),
    )
    const both = await list('?search=user1&subscribed=false&limit=100')
    expect(both.body.contacts.map((c: any) => c.email).sort()).toEqual(['user10@list.example', 'user15@list.example'])
  })

  test('search treats % and _ as plain characters', async () => {
    expect((await list('?search=_100%25')).body.contacts.map((c: any) => c.email)).toEqual(['odd_100%@list.example'])
    expect((await list('?search=%25')).body.total).toBe(1)
  })

  test.each(['1', '100'])('limit=%s is allowed', async (limit) => {
    expect((await list(`?limit=${limit}`)).status).toBe(200)
  })

  test.each(['0', '101', 'abc', '1.5', '-1', ''])('limit=%j is a 422 naming limit', async (limit) => {
    const response = await list(`?limit=${limit}`)
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe('limit')
  })

  test.each(['maybe', '1', 'TRUE '])('subscribed=%j is a 422', async (value) => {
    expect((await list(`?subscribed=${encodeURIComponent(value)}`)).status).toBe(422)
  })

  test('a forged cursor is a 422', async () => {
    for (const cursor of ['abc', 'Zm9vYmFy', '%00%01']) {
      const response = await list(`?cursor=${cursor}`)
      expect(response.status).toBe(422)
      expect(response.body.errors[0].field).toBe('cursor')
    }
  })

  test('paging stays right while contacts are added and deleted between pages', async () => {
    const pageKey = (await t.project('Paging')).secretKey
    const ids: string[] = []
    for (let i = 0; i < 60; i++) {
      ids.push((await t.request('POST', '/contacts', { key: pageKey, body: { email: `p${i}@page.example` } })).body.id)
    }
    const seen: string[] = []
    const deletedBeforeSeen = new Set<string>()
    let cursor: string | null = null
    let round = 0
    do {
      const query: string = cursor ? `?limit=7&cursor=${cursor}` : '?limit=7'
      const page: any = await t.request('GET', `/contacts${query}`, { key: pageKey })
      seen.push(...page.body.contacts.map((c: any) => c.id))
      cursor = page.body.cursor
      // Between pages: add two contacts, delete one already seen and one not yet seen.
      await t.request('POST', '/contacts', { key: pageKey, body: { email: `new${round}a@page.example` } })
      await t.request('POST', '/contacts', { key: pageKey, body: { email: `new${round}b@page.example` } })
      await t.request('DELETE', `/contacts/${seen[round]}`, { key: pageKey })
      const unseen = ids.find((id) => !seen.includes(id) && !deletedBeforeSeen.has(id))
      if (unseen && round % 2 === 0) {
        await t.request('DELETE', `/contacts/${unseen}`, { key: pageKey })
        deletedBeforeSeen.add(unseen)
      }
      round++
    } while (cursor)
    const throughout = ids.filter((id) => !deletedBeforeSeen.has(id))
    for (const id of throughout) expect(seen.filter((s) => s === id)).toHaveLength(1)
    expect(new Set(seen).size).toBe(seen.length)
  })
})
