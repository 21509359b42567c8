// @database-incidental: the HTTP and SMTP protocols (which routes a key's scope opens); the key's columns are tested on both in api-keys.test.ts
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import nodemailer from 'nodemailer'
import { pathOf, routesOf, type Route } from '../helpers/hostile-walk.ts'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * A key's scope, enforced on the route the router matched: every route of the API document is
 * asked with a full key, a sending key and a read key. A sending key reaches the three send routes
 * alone, a read key the GET routes alone; anything else is a 403 that names the scope. The lists
 * below are this test's own, not the server's: a route added later is refused to both scopes
 * unless it is a GET (read) or is added here and in src/http/key-scopes.ts (sending).
 */

const SENDING = new Set(['post /api/v1/emails', 'post /api/v1/emails/batch', 'post /v1/send'])
const READING = new Set(['get', 'head'])
// POSTs that only read (src/http/read-routes.ts): a read key may call them.
const READ_POSTS = new Set(['post /segments/preview'])

let w: World
let routes: Route[]
const keys: Record<'full' | 'sending' | 'read', string> = {} as never

const createKey = async (body: Record<string, unknown>) => {
  const made = await w.t.request('POST', '/api/v1/keys', { key: w.key, body })
  expect(made.status).toBe(201)
  return made.body.key as string
}

beforeAll(async () => {
  const unlimited = '10000000'
  w = await createWorld({
    started: true,
    settings: { 'relay-port': '0', 'rate-limit-per-minute': unlimited, 'track-rate-limit-per-minute': unlimited, 'track-rate-limit-per-address-per-minute': unlimited, 'unauthenticated-rate-limit-per-minute': unlimited },
  })
  keys.full = w.key
  keys.sending = await createKey({ name: 'Mailer', scope: 'sending' })
  keys.read = await createKey({ name: 'Dashboard', scope: 'read' })
  routes = routesOf((await w.t.request('GET', '/swagger/json', { key: w.key })).body)
})

afterAll(() => w.close())

const scopeRefusal = (answer: { status: number; body: any }) => answer.status === 403 && /^This API key's scope is /.test(answer.body?.message ?? '')

async function ask(method: string, path: string, key?: string) {
  const body = method === 'get' || method === 'head' ? undefined : {}
  return w.t.request(method.toUpperCase(), path, { ...(key && { key }), body })
}

describe('every route of the API document, with each scope', () => {
  test('the document lists the routes, the send routes among them', () => {
    expect(routes.length).toBeGreaterThan(90)
    const listed = new Set(routes.map((r) => `${r.method} ${r.template}`))
    for (const route of SENDING) expect(listed.has(route)).toBe(true)
  })

  test('a sending key gets 403 everywhere but the send routes, a read key everywhere but GET routes; elsewhere each answers as a full key does', async () => {
    const wrong: string[] = []
    let guarded = 0
    for (const route of routes) {
      const path = pathOf(route.template, {})
      const name = `${route.method} ${route.template}`
      // Routes that take no key (sign-in, your account, health, the documents) have no scope to check.
      if ((await ask(route.method, path)).status !== 401) continue
      const full = await ask(route.method, path, keys.full)
      if (full.status === 401) continue
      guarded++
      const allowed = { sending: SENDING.has(name), read: READING.has(route.method) || READ_POSTS.has(name) }
      for (const scope of ['sending', 'read'] as const) {
        const answer = await ask(route.method, path, keys[scope])
        if (allowed[scope] && (scopeRefusal(answer) || answer.status !== full.status)) wrong.push(`${name} as ${scope}: ${answer.status} ${answer.body?.message}, a full key ${full.status}`)
        if (!allowed[scope] && !scopeRefusal(answer)) wrong.push(`${name} as ${scope}: ${answer.status} ${answer.body?.code}, expected the scope's 403`)
      }
    }
    expect(wrong).toEqual([])
    expect(guarded).toBeGreaterThan(80)
  }, 120_000)

  test('the refusal says what the scope allows and what to do', async () => {
    const answer = await w.t.request('GET', '/contacts', { key: keys.sending })
    expect(answer.status).toBe(403)
    expect(answer.body).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('sending email') })
    expect(answer.body.suggestion).toContain('full access')
    const write = await w.t.request('POST', '/contacts', { key: keys.read, body: { email: 'jane@example.net' } })
    expect(write.status).toBe(403)
    expect(write.body.message).toBe("This API key's scope is read: it allows reading (GET requests) only")
    expect((await w.t.request('GET', '/contacts', { key: keys.read })).body.contacts).toEqual([])
  })

  test('a sending key sends, and cannot read what it sent; a read key reads it and cannot send', async () => {
    const sent = await w.t.request('POST', '/api/v1/emails', { key: keys.sending, body: { from: 'app@sender.example.com', to: 'scoped@example.net', subject: 'Scoped', text: 'Sent with a sending key.' } })
    expect(sent.status).toBe(200)
    expect((await w.t.request('GET', `/api/v1/emails/${sent.body.emailId}`, { key: keys.sending })).status).toBe(403)
    expect((await w.t.request('GET', `/api/v1/emails/${sent.body.emailId}`, { key: keys.read })).status).toBe(200)
    const refused = await w.t.request('POST', '/api/v1/emails', { key: keys.read, body: { from: 'app@sender.example.com', to: 'scoped@example.net', subject: 'No', text: 'No.' } })
    expect(refused.status).toBe(403)
  })

  test('neither scope can make itself a key with more', async () => {
    for (const key of [keys.sending, keys.read]) {
      const made = await w.t.request('POST', '/api/v1/keys', { key, body: { name: 'Escalate', scope: 'full' } })
      expect(made.status).toBe(403)
    }
  })
})

describe('the SMTP relay', () => {
  const transport = (pass: string) =>
    nodemailer.createTransport({ host: '127.0.0.1', port: w.t.app.listeners()!.relay.port!, secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'mailstead', pass } } as never)
  const message = { from: 'app@sender.example.com', to: 'relayed@example.net', subject: 'Relayed', text: 'Through SMTP.' }

  test('a sending key relays', async () => {
    const info = await transport(keys.sending).sendMail(message)
    expect(info.response).toMatch(/^250 /)
  })

  test('a read key is refused at AUTH with a 535 that says why', async () => {
    const error = await transport(keys.read).sendMail(message).then(() => undefined, (e: Error & { responseCode?: number; response?: string }) => e)
    expect(error?.responseCode).toBe(535)
    expect(error?.response).toContain("This API key's scope is read: it cannot send")
  })
})
