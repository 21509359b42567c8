// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cli } from '../helpers/cli.ts'
import { cliFlags, emailOf, receivedCount, statusesOf } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World

beforeAll(async () => {
  w = await createWorld()
})

afterAll(() => w.close())

const FROM = 'ada@sender.example.com'
const api = (method: string, path: string, body?: unknown, key = w.key) => w.t.request(method, `/api/v1/suppressions${path}`, { key, body })
const send = (fields: Record<string, unknown>) => w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: FROM, subject: 'Hi', html: '<p>Hi</p>', ...fields } })

describe('/api/v1/suppressions', () => {
  test('add, list, remove', async () => {
    const added = await api('POST', '', { email: 'gone@example.net', detail: 'asked by phone' })
    expect(added).toMatchObject({ status: 200, body: { email: 'gone@example.net', reason: 'manual', detail: 'asked by phone', createdAt: expect.any(String) } })
    expect((await api('GET', '')).body.data).toContainEqual(added.body)

    const removed = await api('DELETE', '/gone@example.net')
    expect(removed).toMatchObject({ status: 200, body: { email: 'gone@example.net', success: true } })
    expect((await api('GET', '')).body.data.map((s: any) => s.email)).not.toContain('gone@example.net')
    expect((await api('DELETE', '/gone@example.net')).status).toBe(404)
  })

  test('an address given twice keeps its first entry', async () => {
    await api('POST', '', { email: 'twice@example.net', detail: 'first' })
    const again = await api('POST', '', { email: 'TWICE@example.net', detail: 'second' })
    expect(again.body).toMatchObject({ email: 'twice@example.net', detail: 'first' })
  })

  test('the address in the path may be URL-encoded and in any case', async () => {
    await api('POST', '', { email: 'encoded+tag@example.net' })
    const removed = await api('DELETE', `/${encodeURIComponent('Encoded+Tag@Example.NET')}`)
    expect(removed).toMatchObject({ status: 200, body: { success: true } })
  })

  test('list pages newest first, with the count, and shows only the project’s own', async () => {
    const project = await w.t.project('Suppressions')
    for (let i = 0; i < 5; i++) await api('POST', '', { email: `p${i}@example.net` }, project.secretKey)
    const page = (query: string) => api('GET', query, undefined, project.secretKey)
    const first = await page('?page=1&limit=2')
    expect(first.body.count).toBe(5)
    expect(first.body.data.map((s: any) => s.email)).toEqual(['p4@example.net', 'p3@example.net'])
    expect((await page('?page=3&limit=2')).body.data.map((s: any) => s.email)).toEqual(['p0@example.net'])
    expect((await page('')).body.data).toHaveLength(5)
    expect((await api('GET', '?limit=100')).body.data.map((s: any) => s.email)).not.toContain('p0@example.net')
  })

  test('search keeps the addresses that hold the text, in any case', async () => {
    const project = await w.t.project('Searched')
    for (const email of ['alice@shop.example', 'bob@shop.example', 'carol@other.example', 'under_score@x.example']) await api('POST', '', { email }, project.secretKey)
    const search = async (text: string) => (await api('GET', `?search=${encodeURIComponent(text)}`, undefined, project.secretKey)).body
    expect((await search('SHOP.example')).data.map((s: any) => s.email).sort()).toEqual(['alice@shop.example', 'bob@shop.example'])
    expect((await search('SHOP.example')).count).toBe(2)
    // LIKE's wildcards are plain characters in a search.
    expect((await search('_')).data.map((s: any) => s.email)).toEqual(['under_score@x.example'])
    expect((await search('%')).data).toEqual([])
  })

  test.each([
    ['POST', '', { email: 'not-an-email' }, 422],
    ['POST', '', {}, 422],
    ['POST', '', { email: 'a@example.net', detail: 'x'.repeat(501) }, 422],
    ['POST', '', { email: 'a@example.net', reason: 'complaint' }, 422],
    ['GET', '?limit=101', undefined, 422],
    ['GET', '?page=0', undefined, 422],
    ['GET', `?search=${'x'.repeat(255)}`, undefined, 422],
    ['DELETE', '/never@example.net', undefined, 404],
  ])('%s %s %j is a %d', async (method, path, body, status) => {
    expect((await api(method, path, body)).status).toBe(status)
  })
})

describe('POST /api/v1/suppressions/import', () => {
  const upload = (body: string, key: string, type = 'text/csv') =>
    w.t.app.handle(new Request('http://localhost/api/v1/suppressions/import', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': type }, body }))

  test('a file with a header suppresses each address with its detail; bad lines are listed by number and the rest still added', async () => {
    const project = await w.t.project('Imported')
    await api('POST', '', { email: 'known@example.net', detail: 'first' }, project.secretKey)
    const file = ['Email,Reason', 'one@example.net,bounced elsewhere', 'TWO@Example.net,', 'not an address,x', '', 'known@example.net,second', 'one@example.net,again', '"unclosed'].join('\r\n')
    const answer = await upload(file, project.secretKey)
    expect({ status: answer.status, body: await answer.clone().json() }).toMatchObject({ status: 200 })
    expect(await answer.json()).toEqual({
      added: 2,
      alreadySuppressed: 1,
      failedCount: 2,
      failed: [
        { line: 4, error: expect.stringContaining('"not an address" is not an address') },
        { line: 8, error: expect.stringContaining('quoted field') },
      ],
    })
    const listed = (await api('GET', '?limit=100', undefined, project.secretKey)).body.data
    expect(listed.map((s: any) => [s.email, s.reason, s.detail]).sort()).toEqual([
      ['TWO@Example.net', 'manual', null],
      ['known@example.net', 'manual', 'first'],
      ['one@example.net', 'manual', 'bounced elsewhere'],
    ])
  })

  test('a file without a header takes the first column; a browser form upload works as well', async () => {
    const project = await w.t.project('Headerless')
    const form = new FormData()
    form.append('file', new Blob(['first@example.net\nsecond@example.net,ignored\n'], { type: 'text/csv' }), 'list.csv')
    const encoded = new Response(form)
    const type = encoded.headers.get('content-type')!
    const body = await encoded.arrayBuffer()
    const headers = { authorization: `Bearer ${project.secretKey}`, 'content-type': type, 'content-length': String(body.byteLength) }
    const answer = await w.t.app.handle(new Request('http://localhost/api/v1/suppressions/import', { method: 'POST', headers, body }))
    expect(await answer.json()).toMatchObject({ added: 2, failedCount: 0 })
    expect((await api('GET', '', undefined, project.secretKey)).body.count).toBe(2)
  })

  test('another content type is a 415 and too large a file a 413; nothing is added', async () => {
    const project = await w.t.project('Refused')
    expect((await upload('{"email":"a@example.net"}', project.secretKey, 'application/json')).status).toBe(415)
    const big = 'x@example.net\n'.repeat(400_000)
    expect((await upload(big, project.secretKey)).status).toBe(413)
    expect((await api('GET', '', undefined, project.secretKey)).body.count).toBe(0)
  })
})

describe('sending to a suppressed address', () => {
  test('the suppressed recipient is recorded SUPPRESSED and not sent; the others are', async () => {
    await api('POST', '', { email: 'Blocked@Example.NET' })
    const sent = await send({ to: 'blocked@example.net', cc: 'open@example.net' })
    expect(sent.status).toBe(200)
    await w.deliver()
    const email = await emailOf(w, sent.body.emailId)
    expect(email.emailEvents).toContainEqual(expect.objectContaining({ status: 'SUPPRESSED', data: { recipient: 'blocked@example.net', reason: 'manual' } }))
    expect(statusesOf(email)).toContain('DELIVERED')
    expect(receivedCount(w, 'blocked@example.net')).toBe(0)
    expect(receivedCount(w, 'open@example.net')).toBe(1)
  })

  test('a Plunk send to a suppressed address answers with the email, which is only SUPPRESSED', async () => {
    await api('POST', '', { email: 'plunk-blocked@example.net' })
    const sent = await w.t.request('POST', '/v1/send', { key: w.key, body: { from: FROM, to: 'plunk-blocked@example.net', subject: 'Hi', body: '<p>Hi</p>' } })
    expect(sent.status).toBe(200)
    await w.deliver()
    const email = await emailOf(w, sent.body.data.emails[0].email)
    expect(email.status).toBe('SUPPRESSED')
    expect(statusesOf(email)).toEqual(['SUPPRESSED'])
    expect(receivedCount(w, 'plunk-blocked@example.net')).toBe(0)
  })

  test('an address suppressed after the email was queued is not sent either', async () => {
    const sent = await send({ to: 'late@example.net', scheduledAt: new Date(Date.now() + 3600_000).toISOString() })
    await api('POST', '', { email: 'late@example.net' })
    await w.t.request('PATCH', `/api/v1/emails/${sent.body.emailId}`, { key: w.key, body: { scheduledAt: new Date().toISOString() } })
    await w.deliver()
    const email = await emailOf(w, sent.body.emailId)
    expect(statusesOf(email)).toEqual(['SCHEDULED', 'SCHEDULED', 'SUPPRESSED'])
    expect(email.emailEvents.at(-1)!.data).toMatchObject({ recipient: 'late@example.net', reason: 'manual' })
    expect(receivedCount(w, 'late@example.net')).toBe(0)
  })

  test('a suppression in another project does not stop this one; removing one lets mail through again', async () => {
    const other = await w.t.project('Elsewhere')
    await api('POST', '', { email: 'theirs@example.net' }, other.secretKey)
    await send({ to: 'theirs@example.net' })
    await api('POST', '', { email: 'back@example.net' })
    await send({ to: 'back@example.net' })
    await api('DELETE', '/back@example.net')
    await send({ to: 'back@example.net' })
    await w.deliver()
    expect(receivedCount(w, 'theirs@example.net')).toBe(1)
    expect(receivedCount(w, 'back@example.net')).toBe(1)
  })
})

describe('mailstead suppression', () => {
  test('add, list and remove, seen by the API too', async () => {
    const project = String(w.projectId)
    const added = await cli(['suppression', 'add', 'cli@example.net', '--project', project, ...cliFlags(w)])
    expect(added).toMatchObject({ code: 0, out: `cli@example.net is suppressed in project ${project}` })
    expect((await api('GET', '?limit=100')).body.data).toContainEqual(expect.objectContaining({ email: 'cli@example.net', reason: 'manual' }))

    const listed = await cli(['suppression', 'list', '--project', project, ...cliFlags(w)])
    expect(listed.code).toBe(0)
    expect(listed.out.split('\n')[0]).toMatch(/^EMAIL\s+REASON\s+SINCE\s+DETAIL$/)
    expect(listed.out).toMatch(/^cli@example\.net\s+manual\s+\d{4}-/m)
    const json = await cli(['suppression', 'list', '--project', project, '--json', ...cliFlags(w)])
    expect(JSON.parse(json.out)).toContainEqual(expect.objectContaining({ email: 'cli@example.net' }))

    const removed = await cli(['suppression', 'remove', 'cli@example.net', '--project', project, ...cliFlags(w)])
    expect(removed).toMatchObject({ code: 0, out: `cli@example.net is no longer suppressed in project ${project}` })
    expect((await api('GET', '?limit=100')).body.data.map((s: any) => s.email)).not.toContain('cli@example.net')
  })

  test('an empty list says so', async () => {
    const project = await w.t.project('Nothing suppressed')
    expect(await cli(['suppression', 'list', '--project', String(project.id), ...cliFlags(w)])).toMatchObject({ code: 0, out: 'No suppressed addresses' })
  })

  test.each([
    ['add without --project', ['suppression', 'add', 'a@example.net'], 2, "required option '--project <id>' not specified"],
    ['add without an address', ['suppression', 'add', '--project', 'PROJECT'], 2, "missing required argument 'EMAIL'"],
    ['add a malformed address', ['suppression', 'add', 'nope', '--project', 'PROJECT'], 1, 'not valid'],
    ['remove an address that is not suppressed', ['suppression', 'remove', 'never@example.net', '--project', 'PROJECT'], 1, 'not found'],
  ])('%s is an error', async (_, argv, code, message) => {
    const result = await cli([...argv.map((arg) => (arg === 'PROJECT' ? String(w.projectId) : arg)), ...cliFlags(w)])
    expect(result).toMatchObject({ code, err: expect.stringContaining(message) })
  })
})
