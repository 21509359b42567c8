// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { addMember } from '../../src/core/accounts/members.service.ts'
import { makeAccount, signIn, type Browser } from '../helpers/accounts.ts'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * GET /api/v1/emails/{emailId}/preview: an email's HTML as a sandboxed document for the console's
 * frame, which cannot send X-Project-Id and so names the project in ?projectId= (this route only).
 */

let w: World
let member: Browser
let stranger: Browser
let htmlId: string
let textId: string
const HTML = '<!DOCTYPE html><html><body><script>document.title="ran"</script><form action="https://evil.example/"><button>Go</button></form><img src="https://images.example/p.png"><a href="https://example.org/">Link</a></body></html>'

const preview = (id: string, query: string, headers: Record<string, string>) => w.t.request('GET', `/api/v1/emails/${id}/preview${query}`, { headers })

beforeAll(async () => {
  w = await createWorld()
  const reader = await makeAccount(w.t, 'member@example.com')
  const account = await makeAccount(w.t, 'stranger@example.com')
  const other = await w.t.project('Other')
  await w.t.app.writer.run((trx) => addMember(trx, w.projectId, reader.id, 'viewer', Date.now()))
  await w.t.app.writer.run((trx) => addMember(trx, other.id, account.id, 'owner', Date.now()))
  member = await signIn(w.t, 'member@example.com')
  stranger = await signIn(w.t, 'stranger@example.com')
  const send = async (body: Record<string, unknown>) => (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'shop@sender.example.com', to: 'jane@example.net', subject: 'Hi', ...body } })).body.emailId as string
  htmlId = await send({ html: HTML, text: 'Hi' })
  textId = await send({ text: 'Only text' })
})

afterAll(() => w.close())

describe('the preview document', () => {
  test('is the HTML under a policy that sandboxes it, runs no script, submits no form and loads no remote image', async () => {
    const answer = await preview(htmlId, `?projectId=${w.projectId}`, member.headers())
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const policy = answer.headers.get('content-security-policy')!
    expect(policy).toContain('sandbox allow-popups allow-popups-to-escape-sandbox;')
    expect(policy).not.toContain('allow-scripts')
    expect(policy).not.toContain('allow-same-origin')
    expect(policy).not.toContain('allow-forms')
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain('img-src data:;')
    expect(policy).toContain("form-action 'none'")
    expect(policy).toContain("frame-ancestors 'self'")
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer')
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
    expect(answer.headers.get('cache-control')).toBe('private, no-store')
    // After the doctype, so the email keeps its rendering mode: UTF-8, and links open a new tab.
    expect(answer.body).toBe(`<!DOCTYPE html><meta charset="utf-8"><base target="_blank">${HTML.slice('<!DOCTYPE html>'.length)}`)
  })

  test('loads images from other servers only with remoteImages=true', async () => {
    const answer = await preview(htmlId, `?projectId=${w.projectId}&remoteImages=true`, member.headers())
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-security-policy')).toContain('img-src data: http: https:;')
    const off = await preview(htmlId, `?projectId=${w.projectId}&remoteImages=false`, member.headers())
    expect(off.headers.get('content-security-policy')).toContain('img-src data:;')
    const wrong = await preview(htmlId, `?projectId=${w.projectId}&remoteImages=yes`, member.headers())
    expect(wrong.status).toBe(422)
  })

  test('an email without HTML, or none of the project, is a 404', async () => {
    const text = await preview(textId, `?projectId=${w.projectId}`, member.headers())
    expect(text.status).toBe(404)
    expect(text.body.message).toBe('This email has no HTML part')
    expect((await preview('nope-nope', `?projectId=${w.projectId}`, member.headers())).status).toBe(404)
    const other = await w.t.project('Third')
    expect((await w.t.request('GET', `/api/v1/emails/${htmlId}/preview`, { key: other.secretKey })).status).toBe(404)
  })
})

describe('naming the project', () => {
  test('a session names it in projectId or X-Project-Id; without either it is a 400', async () => {
    expect((await preview(htmlId, '', member.headers({ project: w.projectId }))).status).toBe(200)
    const none = await preview(htmlId, '', member.headers())
    expect(none.status).toBe(400)
    expect((await preview(htmlId, '?projectId=0x1', member.headers())).status).toBe(400)
  })

  test("a project the session's account is not a member of is a 403, whatever names it", async () => {
    expect((await preview(htmlId, `?projectId=${w.projectId}`, stranger.headers())).status).toBe(403)
    expect((await preview(htmlId, '', stranger.headers({ project: w.projectId }))).status).toBe(403)
  })

  test('without a session or key it is a 401', async () => {
    expect((await preview(htmlId, `?projectId=${w.projectId}`, {})).status).toBe(401)
  })

  test("a key's project is its own, whatever projectId says", async () => {
    const answer = await w.t.request('GET', `/api/v1/emails/${htmlId}/preview?projectId=999`, { key: w.key })
    expect(answer.status).toBe(200)
  })

  test('projectId names no project on the other routes', async () => {
    const read = await w.t.request('GET', `/api/v1/emails/${htmlId}?projectId=${w.projectId}`, { headers: member.headers() })
    expect(read.status).toBe(400)
    const raw = await w.t.request('GET', `/api/v1/emails/${htmlId}/raw?projectId=${w.projectId}`, { headers: member.headers() })
    expect(raw.status).toBe(400)
  })
})
