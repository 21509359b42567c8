// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createWorld, type World } from '../helpers/world.ts'

/**
 * A subject that could never be sent (a header line with a break or a NUL in it) is refused when
 * it is saved, by every route that stores one to send later, and nothing is stored.
 */

let w: World
let ids: { template: string; campaign: string; v1Campaign: string; workflow: string; book: string }

const FROM = 'news@sender.example.com'
const call = async (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })

beforeAll(async () => {
  w = await createWorld()
  const book = (await call('POST', '/api/v1/contactBooks', { name: 'Readers' })).body.id
  ids = {
    book,
    template: (await call('POST', '/templates', { name: 'T', subject: 'Hello', body: '<p>Hi</p>' })).body.id,
    campaign: (await call('POST', '/campaigns', { name: 'C', subject: 'Hello', body: '<p>Hi</p>', from: FROM, audienceType: 'ALL' })).body.data.id,
    v1Campaign: (await call('POST', '/api/v1/campaigns', { name: 'V', subject: 'Hello', from: FROM, contactBookId: book, html: '<p>Hi</p>' })).body.id,
    workflow: (await call('POST', '/workflows', { name: 'W', triggerType: 'MANUAL', steps: [{ id: 'mail', type: 'SEND_EMAIL', config: { subject: 'Hello', body: '<p>Hi</p>', from: FROM } }] })).body.id,
  }
})

afterAll(() => w.close())

const BAD_SUBJECTS: ReadonlyArray<readonly [string, string]> = [
  ['a NUL', 'Hello\u0000'],
  ['CR LF and a header after it', 'Hello\r\nBcc: thief@example.net'],
  ['a lone CR', 'Hello\rthere'],
  ['a lone LF', 'Hello\nthere'],
  ['an escape character', 'Hello \u001b[31mred'],
  ['a Unicode line separator', 'Hello\u2028there'],
]

/** Each route that saves a subject: the request, and the field its 422 names. */
const savers = (subject: string): Array<[string, string, unknown, string]> => [
  ['POST', '/templates', { name: 'T', subject, body: '<p>Hi</p>' }, 'subject'],
  ['PATCH', `/templates/${ids.template}`, { subject }, 'subject'],
  ['POST', '/campaigns', { name: 'C', subject, body: '<p>Hi</p>', from: FROM, audienceType: 'ALL' }, 'subject'],
  ['PATCH', `/campaigns/${ids.campaign}`, { subject }, 'subject'],
  ['PUT', `/campaigns/${ids.campaign}`, { subject }, 'subject'],
  ['POST', '/api/v1/campaigns', { name: 'V', subject, from: FROM, contactBookId: ids.book, html: '<p>Hi</p>' }, 'subject'],
  ['POST', '/workflows', { name: 'W', triggerType: 'MANUAL', steps: [{ id: 'mail', type: 'SEND_EMAIL', config: { subject, body: '<p>Hi</p>', from: FROM } }] }, 'steps[0].config.subject'],
  ['POST', `/workflows/${ids.workflow}/steps`, { step: { id: 'more', type: 'SEND_EMAIL', config: { subject, body: '<p>Hi</p>', from: FROM } } }, 'steps[0].config.subject'],
  ['PATCH', `/workflows/${ids.workflow}/steps/mail`, { config: { subject, body: '<p>Hi</p>', from: FROM } }, 'steps[0].config.subject'],
]

const stored = async () => ({
  templates: await w.t.app.db.selectFrom('templates').select(['id', 'subject']).orderBy('id').execute(),
  campaigns: await w.t.app.db.selectFrom('campaigns').select(['id', 'subject']).orderBy('id').execute(),
  workflows: await w.t.app.db.selectFrom('workflows').select(['id', 'steps']).orderBy('id').execute(),
})

describe('subjects are checked when they are saved', () => {
  test.each(BAD_SUBJECTS)('a subject with %s is a 422 naming the field on every route that saves one; nothing is stored', async (_, subject) => {
    const before = await stored()
    for (const [method, path, body, field] of savers(subject)) {
      const response = await call(method, path, body)
      expect({ route: `${method} ${path}`, status: response.status, field: response.body.errors?.[0]?.field }).toEqual({ route: `${method} ${path}`, status: 422, field })
    }
    expect(await stored()).toEqual(before)
  })

  test('a subject with a tab, accents and emoji is one line, and is saved everywhere', async () => {
    for (const [method, path, body] of savers('Hello\tÜnïcode 📰')) {
      const response = await call(method, path, body)
      expect({ route: `${method} ${path}`, ok: response.status < 300 }).toEqual({ route: `${method} ${path}`, ok: true })
    }
  })
})
