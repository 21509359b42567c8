// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { messageIdsByRecipient, runCampaign } from '../helpers/campaigns.ts'
import { receivedBy } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

checkAnswersAgainstDocument()

let w: World
let bookId: string

beforeAll(async () => {
  w = await createWorld()
  bookId = (await api('POST', '/api/v1/contactBooks', { name: 'Newsletter' })).body.id
  const members = Array.from({ length: 5 }, (_, i) => ({ email: `member${i}@example.net`, firstName: `Member${i}` }))
  expect((await api('POST', `/api/v1/contactBooks/${bookId}/contacts/bulk`, members)).status).toBe(200)
  await api('POST', '/contacts', { email: 'outsider@example.net' })
})

afterAll(() => w.close())

function api(method: string, path: string, body?: unknown) {
  return w.t.request(method, path, { key: w.key, body })
}

const create = (fields: Record<string, unknown> = {}) =>
  api('POST', '/api/v1/campaigns', {
    name: 'Launch',
    from: 'Launch Team <launch@sender.example.com>',
    subject: 'We launched, {{firstName ?? "friend"}}',
    contactBookId: bookId,
    html: '<p>Hi {{data.firstName ?? "there"}}</p>',
    previewText: 'Big news',
    replyTo: 'help@sender.example.com',
    ...fields,
  })

const V1_FIELDS = [
  'id', 'name', 'from', 'subject', 'previewText', 'contactBookId', 'html', 'content', 'status', 'scheduledAt', 'batchSize',
  'batchWindowMinutes', 'total', 'sent', 'delivered', 'opened', 'clicked', 'unsubscribed', 'bounced', 'hardBounced', 'complained',
  'replyTo', 'cc', 'bcc', 'createdAt', 'updatedAt',
]

describe('campaigns, useSend form', () => {
  test('POST /api/v1/campaigns answers the raw v1 Campaign with every field present', async () => {
    const created = await create()
    expect(created.status).toBe(200)
    expect(Object.keys(created.body).sort()).toEqual([...V1_FIELDS].sort())
    expect(created.body).toMatchObject({
      from: 'Launch Team <launch@sender.example.com>',
      contactBookId: bookId,
      status: 'DRAFT',
      previewText: 'Big news',
      content: null,
      scheduledAt: null,
      batchSize: 500,
      batchWindowMinutes: 0,
      total: 5,
      replyTo: ['help@sender.example.com'],
      cc: [],
      bcc: [],
    })
    const got = await api('GET', `/api/v1/campaigns/${created.body.id}`)
    expect(got.body).toEqual(created.body)
  })

  test.each([
    ['a contact book that is not one', { contactBookId: 'nope' }, 'contactBookId'],
    ['neither html nor content', { html: undefined }, 'html'],
    ['a scheduledAt that is not a time', { scheduledAt: 'next monday' }, 'scheduledAt'],
    ['a batch size out of range', { batchSize: 0 }, 'batchSize'],
  ])('refuses %s with 422', async (_, fields, field) => {
    const answer = await create(fields)
    expect(answer.status).toBe(422)
    expect(answer.body.errors.map((e: { field: string }) => e.field)).toContain(field)
  })

  test('sendNow sends to the contact book and nobody else, each member once, in batches of batchSize', async () => {
    const created = await create({ sendNow: true, batchSize: 2 })
    expect(created.body.status).toBe('SENDING')
    const done = await runCampaign(w, created.body.id)
    expect(done.status).toBe('SENT')
    const v1 = (await api('GET', `/api/v1/campaigns/${created.body.id}`)).body
    expect(v1).toMatchObject({ status: 'SENT', total: 5, sent: 5, delivered: 5 })
    const ids = messageIdsByRecipient(w)
    for (let i = 0; i < 5; i++) expect(ids.get(`member${i}@example.net`)).toHaveLength(1)
    expect(ids.has('outsider@example.net')).toBe(false)
    expect(receivedBy(w, 'member3@example.net').headers.subject).toBe('We launched, Member3')
  })

  test('schedule, pause and resume answer {success: true}; a DRAFT can be deleted and answers the campaign', async () => {
    const id = (await create()).body.id
    const at = new Date(Date.now() + 86_400_000).toISOString()
    expect((await api('POST', `/api/v1/campaigns/${id}/schedule`, { scheduledAt: at, batchSize: 100 })).body).toEqual({ success: true })
    expect((await api('GET', `/api/v1/campaigns/${id}`)).body).toMatchObject({ status: 'SCHEDULED', scheduledAt: at, batchSize: 100 })
    expect((await api('POST', `/api/v1/campaigns/${id}/pause`)).body).toEqual({ success: true })
    expect((await api('POST', `/api/v1/campaigns/${id}/resume`)).body).toEqual({ success: true })
    expect((await api('DELETE', `/api/v1/campaigns/${id}`)).status).toBe(409)
    const draftId = (await create({ name: 'Throwaway' })).body.id
    const deleted = await api('DELETE', `/api/v1/campaigns/${draftId}`)
    expect(deleted.body).toMatchObject({ id: draftId, name: 'Throwaway' })
    expect((await api('GET', `/api/v1/campaigns/${draftId}`)).status).toBe(404)
  })

  test('GET /api/v1/campaigns filters by status and searches names and subjects', async () => {
    await create({ name: 'Spring sale' })
    const all = await api('GET', '/api/v1/campaigns')
    expect(all.body.totalPage).toBe(1)
    expect(Object.keys(all.body.campaigns[0]).sort()).toEqual(['createdAt', 'delivered', 'from', 'id', 'name', 'scheduledAt', 'sent', 'status', 'subject', 'total', 'unsubscribed', 'updatedAt'])
    const sale = await api('GET', '/api/v1/campaigns?search=SPRING')
    expect(sale.body.campaigns.map((c: { name: string }) => c.name)).toEqual(['Spring sale'])
    expect(new Set(all.body.campaigns.map((c: { status: string }) => c.status))).toEqual(new Set(['DRAFT', 'SENT', 'SCHEDULED']))
    const sent = await api('GET', '/api/v1/campaigns?status=SENT')
    expect(sent.body.campaigns.every((c: { status: string }) => c.status === 'SENT')).toBe(true)
    expect((await api('GET', '/api/v1/campaigns?status=DONE')).status).toBe(422)
  })
})
