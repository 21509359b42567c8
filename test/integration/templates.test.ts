// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { emailOf, rowCounts } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

checkAnswersAgainstDocument()

let w: World
let other: { secretKey: string }

beforeAll(async () => {
  w = await createWorld()
  other = await w.t.project('Other')
})

afterAll(() => w.close())

const FROM = 'ada@sender.example.com'
const create = (fields: Record<string, unknown> = {}, key = w.key) =>
  w.t.request('POST', '/templates', { key, body: { name: 'Welcome', subject: 'Welcome, {{name}}', body: '<p>Hi {{name}}</p>', ...fields } })

describe('/templates', () => {
  test('create (201), get, update, delete', async () => {
    const created = await create()
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Welcome',
      subject: 'Welcome, {{name}}',
      body: '<p>Hi {{name}}</p>',
      type: 'MARKETING',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    const path = `/templates/${created.body.id}`
    expect((await w.t.request('GET', path, { key: w.key })).body).toEqual(created.body)

    const updated = await w.t.request('PATCH', path, { key: w.key, body: { subject: 'Hello, {{name}}' } })
    expect(updated).toMatchObject({ status: 200, body: { id: created.body.id, name: 'Welcome', subject: 'Hello, {{name}}', body: '<p>Hi {{name}}</p>' } })
    expect((await w.t.request('GET', path, { key: w.key })).body.subject).toBe('Hello, {{name}}')

    expect(await w.t.request('DELETE', path, { key: w.key })).toMatchObject({ status: 200, body: { id: created.body.id, success: true } })
    expect((await w.t.request('GET', path, { key: w.key })).status).toBe(404)
    expect((await w.t.request('DELETE', path, { key: w.key })).status).toBe(404)
    expect((await w.t.request('PATCH', path, { key: w.key, body: { name: 'x' } })).status).toBe(404)
  })

  test('list pages with page and pageSize (20 by default), newest first, with the total', async () => {
    const project = await w.t.project('Many templates')
    const ids: string[] = []
    for (let i = 0; i < 25; i++) ids.push((await create({ name: `T${i}` }, project.secretKey)).body.id)
    const list = (query: string) => w.t.request('GET', `/templates${query}`, { key: project.secretKey })

    const first = await list('')
    expect(first.body).toMatchObject({ page: 1, pageSize: 20, total: 25 })
    expect(first.body.templates.map((t: any) => t.id)).toEqual(ids.toReversed().slice(0, 20))
    const second = await list('?page=2')
    expect(second.body.templates.map((t: any) => t.id)).toEqual(ids.toReversed().slice(20))
    const small = await list('?page=3&pageSize=10')
    expect(small.body).toMatchObject({ page: 3, pageSize: 10, total: 25 })
    expect(small.body.templates).toHaveLength(5)
    expect((await list('?pageSize=100')).body.templates).toHaveLength(25)
  })

  test.each(['pageSize=101', 'pageSize=0', 'page=0', 'page=one'])('list ?%s is a 422', async (query) => {
    expect((await w.t.request('GET', `/templates?${query}`, { key: w.key })).status).toBe(422)
  })

  test.each([
    ['no name', { name: undefined }],
    ['an empty name', { name: ' ' }],
    ['no subject', { subject: undefined }],
    ['a subject with a line break', { subject: 'Hi\r\nBcc: thief@example.net' }],
    ['an empty body', { body: '' }],
    ['an unknown field', { html: '<p>x</p>' }],
  ])('create with %s is a 422', async (_, fields) => {
    const response = await create(fields)
    expect(response.status).toBe(422)
    expect(response.body.errors.length).toBeGreaterThan(0)
  })

  test('an update with nothing to change is a 422', async () => {
    const created = await create()
    expect((await w.t.request('PATCH', `/templates/${created.body.id}`, { key: w.key, body: {} })).status).toBe(422)
  })

  test('another project’s template cannot be read, changed, deleted or sent', async () => {
    const theirs = await create({ name: 'Theirs' }, other.secretKey)
    const path = `/templates/${theirs.body.id}`
    expect((await w.t.request('GET', path, { key: w.key })).status).toBe(404)
    expect((await w.t.request('PATCH', path, { key: w.key, body: { name: 'Mine now' } })).status).toBe(404)
    expect((await w.t.request('DELETE', path, { key: w.key })).status).toBe(404)
    expect((await w.t.request('GET', path, { key: other.secretKey })).body.name).toBe('Theirs')
    expect((await w.t.request('GET', '/templates', { key: w.key })).body.templates.map((t: any) => t.id)).not.toContain(theirs.body.id)

    const before = await rowCounts(w)
    const useSend = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: FROM, to: 'x@example.net', templateId: theirs.body.id } })
    const plunk = await w.t.request('POST', '/v1/send', { key: w.key, body: { from: FROM, to: 'x@example.net', template: theirs.body.id } })
    expect([useSend.status, plunk.status]).toEqual([422, 422])
    expect(await rowCounts(w)).toEqual(before)
  })
})

describe('template type', () => {
  test('set on create and update, returned, MARKETING when absent', async () => {
    const made = await create({ type: 'TRANSACTIONAL' })
    expect(made).toMatchObject({ status: 201, body: { type: 'TRANSACTIONAL' } })
    const path = `/templates/${made.body.id}`
    expect((await w.t.request('GET', path, { key: w.key })).body.type).toBe('TRANSACTIONAL')
    const changed = await w.t.request('PATCH', path, { key: w.key, body: { type: 'HEADLESS' } })
    expect(changed).toMatchObject({ status: 200, body: { type: 'HEADLESS', name: 'Welcome', subject: 'Welcome, {{name}}' } })
    expect((await w.t.request('PATCH', path, { key: w.key, body: { name: 'Renamed' } })).body.type).toBe('HEADLESS')
    expect((await create()).body.type).toBe('MARKETING')
  })

  test.each(['transactional', 'OTHER', ''])('type %j is a 422 naming type and its values, on create and on update', async (type) => {
    const before = await rowCounts(w)
    const refused = await create({ type })
    expect(refused.status).toBe(422)
    expect(refused.body.errors).toMatchObject([{ field: 'type', message: 'Choose one of these for type: TRANSACTIONAL, MARKETING, HEADLESS.' }])
    expect(await rowCounts(w)).toEqual(before)
    const made = await create({ type: 'MARKETING' })
    const update = await w.t.request('PATCH', `/templates/${made.body.id}`, { key: w.key, body: { type } })
    expect(update.body.errors).toMatchObject([{ field: 'type', message: 'Choose one of these for type: TRANSACTIONAL, MARKETING, HEADLESS.' }])
    expect((await w.t.request('GET', `/templates/${made.body.id}`, { key: w.key })).body.type).toBe('MARKETING')
  })
})

describe('listing templates by type and search', () => {
  let key: string
  const ids: Record<string, string> = {}
  const list = async (query: string) => {
    const response = await w.t.request('GET', `/templates?pageSize=100&${query}`, { key })
    expect(response.status).toBe(200)
    return response.body
  }
  const names = (body: { templates: Array<{ name: string }> }) => body.templates.map((t) => t.name).toSorted()

  beforeAll(async () => {
    key = (await w.t.project('Filtered templates')).secretKey
    for (const [name, subject, type] of [
      ['Welcome', 'Hello there', 'TRANSACTIONAL'],
      ['Password reset', 'Reset your PASSWORD', 'TRANSACTIONAL'],
      ['Sale', '100% off today', 'MARKETING'],
      ['Percent', '100 percent', 'MARKETING'],
      ['snake_case', 'underscore', 'HEADLESS'],
      ['snakeXcase', 'no underscore', 'HEADLESS'],
    ]) {
      ids[name!] = (await create({ name, subject, type }, key)).body.id
    }
  })

  test('type filters, with the total of what it selects', async () => {
    const transactional = await list('type=TRANSACTIONAL')
    expect(names(transactional)).toEqual(['Password reset', 'Welcome'])
    expect(transactional.total).toBe(2)
    expect(names(await list('type=HEADLESS'))).toEqual(['snakeXcase', 'snake_case'])
    expect((await list('')).total).toBe(6)
  })

  test('an unknown type filter is a 422 naming type', async () => {
    const response = await w.t.request('GET', '/templates?type=NEWSLETTER', { key })
    expect(response.status).toBe(422)
    expect(response.body.errors).toMatchObject([{ field: 'type', message: 'Choose one of these for type: TRANSACTIONAL, MARKETING, HEADLESS.' }])
  })

  test.each([
    ['WELCOME', ['Welcome']],
    ['password', ['Password reset']],
    ['hello THERE', ['Welcome']],
    ['100%', ['Sale']],
    ['%', ['Sale']],
    ['e_c', ['snake_case']],
    ['_', ['snake_case']],
    ['underscore', ['snakeXcase', 'snake_case']],
    ['nothing like it', []],
  ])('search %j matches the name or the subject in any case, % and _ literally', async (search, expected) => {
    expect(names(await list(`search=${encodeURIComponent(search)}`))).toEqual(expected)
  })

  test('search and type together, with sort', async () => {
    const body = await list('search=100&type=MARKETING&sort=name&dir=asc')
    expect(body.templates.map((t: { id: string }) => t.id)).toEqual([ids['Percent'], ids['Sale']])
    expect(body.total).toBe(2)
    expect((await list('search=100&type=HEADLESS')).total).toBe(0)
  })
})

// Transactional templates: a MARKETING one (the default type) adds the unsubscribe footer (bulk-mail.test.ts).
describe('sending with a template', () => {
  let templateId: string

  beforeAll(async () => {
    const template = await create({
      type: 'TRANSACTIONAL',
      subject: 'Hi {{name ?? there}}, your {{plan}} plan',
      body: '<p>Dear {{name ?? "customer"}}, from {{city ?? "somewhere"}}: {{plan}}</p>',
    })
    templateId = template.body.id
    await w.t.request('POST', '/contacts', { key: w.key, body: { email: 'known@example.net', data: { name: 'Kim', city: 'Oslo' } } })
  })

  const useSend = async (to: string, variables?: Record<string, unknown>) =>
    emailOf(w, (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: FROM, to, templateId, variables } })).body.emailId)
  const plunk = async (to: string, data?: Record<string, unknown>) => {
    const response = await w.t.request('POST', '/v1/send', { key: w.key, body: { from: FROM, to, template: templateId, data } })
    return emailOf(w, response.body.data.emails[0].email)
  }

  test.each([
    ['useSend, variables', () => useSend('v@example.net', { name: 'Vic', plan: 'pro', city: 'Rome' }), 'Hi Vic, your pro plan', '<p>Dear Vic, from Rome: pro</p>'],
    ['useSend, no variables: fallbacks', () => useSend('nobody@example.net'), 'Hi there, your  plan', '<p>Dear customer, from somewhere: </p>'],
    ['useSend, the contact’s data, then variables over it', () => useSend('known@example.net', { plan: 'team' }), 'Hi Kim, your team plan', '<p>Dear Kim, from Oslo: team</p>'],
    ['Plunk, data', () => plunk('d@example.net', { name: 'Dee', plan: 'free' }), 'Hi Dee, your free plan', '<p>Dear Dee, from somewhere: free</p>'],
    ['Plunk, data over the contact’s data', () => plunk('known@example.net', { name: 'Kimberly', plan: 'pro' }), 'Hi Kimberly, your pro plan', '<p>Dear Kimberly, from Oslo: pro</p>'],
  ])('%s', async (_, sendIt, subject, html) => {
    const email = await sendIt()
    expect({ subject: email.subject, html: email.html }).toEqual({ subject, html })
  })

  test('values are escaped in the HTML body, not in the subject or the text', async () => {
    const template = await create({ type: 'TRANSACTIONAL', subject: 'For {{name}}', body: '<p>{{name}}</p>' })
    const sent = await w.t.request('POST', '/api/v1/emails', {
      key: w.key,
      body: { from: FROM, to: 'esc@example.net', templateId: template.body.id, text: 'Text for {{name}}', variables: { name: `<b>"Bo" & 'Al'</b>` } },
    })
    const email = await emailOf(w, sent.body.emailId)
    expect(email.html).toBe('<p>&lt;b&gt;&quot;Bo&quot; &amp; &#39;Al&#39;&lt;/b&gt;</p>')
    expect(email.subject).toBe(`For <b>"Bo" & 'Al'</b>`)
    expect(email.text).toBe(`Text for <b>"Bo" & 'Al'</b>`)
  })

  test('a subject given with the template is used instead of the template’s', async () => {
    const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: FROM, to: 'own@example.net', templateId, subject: 'Own subject' } })
    const email = await emailOf(w, sent.body.emailId)
    expect(email.subject).toBe('Own subject')
    expect(email.html).toBe('<p>Dear customer, from somewhere: </p>')
  })

  test('a Plunk body without data still takes its values from the contact’s data', async () => {
    await w.t.request('POST', '/contacts', { key: w.key, body: { email: 'plain@example.net', data: { name: 'Kim', city: 'Oslo' } } })
    const response = await w.t.request('POST', '/v1/send', {
      key: w.key,
      body: { from: FROM, to: 'plain@example.net', subject: 'For {{name ?? you}}', body: '<p>Hello {{name ?? "there"}} in {{city}}</p>' },
    })
    const email = await emailOf(w, response.body.data.emails[0].email)
    expect({ subject: email.subject, html: email.html }).toEqual({ subject: 'For Kim', html: '<p>Hello Kim in Oslo</p>' })
  })
})
