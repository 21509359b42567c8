// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { browserOf, makeAccount, PASSWORD, signIn, type Browser } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { pathOf, routesOf, type Route } from '../helpers/hostile-walk.ts'
import { spellingsOf } from '../helpers/spellings.ts'

/*
 * Access control that no spelling of a path gets around: every route of the API document, for
 * each role and for keys, asked for with a trailing slash, a doubled slash, a percent-encoded
 * letter or parameter, and in upper case. Each spelling gets the plain path's answer (status and
 * error code), or, where the router takes no such path, a 404 for every caller; never a write the
 * plain path refuses. The same for CORS: only /v1/track answers a cross-origin preflight.
 */

let t: TestApp
let routes: Route[]
let project: { id: number; secretKey: string; publicKey: string }
const callers: Record<string, Record<string, string>> = {}

const invite = async (owner: Browser, email: string, role: string) => {
  const response = await t.request('POST', '/api/v1/project/invitations', { headers: owner.headers({ project: project.id }), body: { email, role } })
  return new URL(response.body.link).searchParams.get('token')!
}

beforeAll(async () => {
  const unlimited = '10000000'
  t = await createTestApp({ 'rate-limit-per-minute': unlimited, 'track-rate-limit-per-minute': unlimited, 'track-rate-limit-per-address-per-minute': unlimited, 'unauthenticated-rate-limit-per-minute': unlimited })
  await makeAccount(t, 'owner@example.com')
  const owner = await signIn(t, 'owner@example.com')
  project = (await t.request('POST', '/api/v1/account/projects', { headers: owner.headers(), body: { name: 'Spelled' } })).body
  callers.owner = owner.headers({ project: project.id })
  for (const role of ['admin', 'member', 'viewer']) {
    const accepted = await t.request('POST', '/api/v1/invitations/accept', { body: { token: await invite(owner, `${role}@example.com`, role), password: PASSWORD } })
    callers[role] = browserOf(accepted).headers({ project: project.id })
  }
  callers['secret key'] = { authorization: `Bearer ${project.secretKey}` }
  callers['public key'] = { authorization: `Bearer ${project.publicKey}` }
  routes = routesOf((await t.request('GET', '/swagger/json', { key: project.secretKey })).body)
})

afterAll(() => t.close())

/** Routes the walk leaves to their own tests: it would end the project or the session it walks with. */
const ENDS_THE_WALK = new Set(['delete /api/v1/project owner', 'post /api/v1/auth/sign-out'])

const PLACEHOLDER = 'none'
const NO_ROUTE = (answer: { status: number; body: any }) => answer.status === 404 && /^No route for /.test(answer.body?.message ?? '')
const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'))

async function ask(method: string, path: string, headers: Record<string, string>) {
  const body = method === 'get' || method === 'head' ? undefined : {}
  const answer = await t.request(method.toUpperCase(), path, { headers: { ...headers, origin: 'http://localhost' }, body })
  return { status: answer.status, code: answer.body?.code as string | undefined, body: answer.body, cors: corsHeaders(answer.headers).length > 0 }
}

describe('every route, every spelling, every caller', () => {
  test('the document lists the routes', () => {
    expect(routes.length).toBeGreaterThan(90)
  })

  test('each spelling gets the plain path\'s decision, or no route at all', async () => {
    const differ: string[] = []
    let routed = 0
    for (const route of routes) {
      const plainPath = pathOf(route.template, {})
      for (const [who, headers] of Object.entries(callers)) {
        if (ENDS_THE_WALK.has(`${route.method} ${route.template} ${who}`) || ENDS_THE_WALK.has(`${route.method} ${route.template}`)) continue
        const plain = await ask(route.method, plainPath, headers)
        for (const spelling of spellingsOf(plainPath, route.template.includes('{') ? PLACEHOLDER : undefined)) {
          const spelled = await ask(route.method, spelling.path, headers)
          const same = spelled.status === plain.status && spelled.code === plain.code && spelled.cors === plain.cors
          if (same && !NO_ROUTE(spelled)) routed++
          if (same || (NO_ROUTE(spelled) && !spelling.routes && !spelled.cors)) continue
          differ.push(`${route.method.toUpperCase()} ${spelling.path} as ${who}: ${spelled.status} ${spelled.code} (cors ${spelled.cors}), plain ${plain.status} ${plain.code} (cors ${plain.cors})`)
        }
      }
    }
    expect(differ).toEqual([])
    // The spellings the router takes were really tried: not every answer was a 404.
    expect(routed).toBeGreaterThan(routes.length * 5)
  }, 600_000)

  test('DELETE /api/v1/project/ with the slash: refused to an admin and to a secret key, as without it; an owner deletes', async () => {
    const routed = ['/api/v1/project', '/api/v1/project/', '/api/v1/project?', '/api/v1/project/?a=1', '/api/v1/project/%2e', '/api/v1/./project']
    const unrouted = ['/api/v1//project', '//api/v1/project', '/api/v1/project//', '/api/v1/%70roject', '/API/V1/PROJECT', '/api/v1/project;x', '/api/v1/project%2F', '/api/v1/project%20']
    for (const who of ['admin', 'secret key']) {
      for (const path of [...routed, ...unrouted]) {
        const answer = await t.request('DELETE', path, { headers: callers[who] })
        expect({ who, path, status: answer.status }).toEqual({ who, path, status: routed.includes(path) ? 403 : 404 })
      }
    }
    expect((await t.request('GET', '/api/v1/project', { key: project.secretKey })).status).toBe(200)
    expect((await t.request('DELETE', '/api/v1/project/', { headers: callers.owner })).status).toBe(200)
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(401)
  })
})

describe('cross-origin preflights', () => {
  test('only /v1/track answers one, in every spelling the router takes; every other route and spelling is refused', async () => {
    const answered: string[] = []
    for (const route of routes) {
      const plainPath = pathOf(route.template, {})
      for (const path of [plainPath, ...spellingsOf(plainPath, route.template.includes('{') ? PLACEHOLDER : undefined).map((s) => s.path)]) {
        const answer = await t.request('OPTIONS', path, { headers: { origin: 'https://shop.example', 'access-control-request-method': route.method.toUpperCase() } })
        if (answer.status !== 403 || corsHeaders(answer.headers).length > 0) answered.push(`${path}: ${answer.status}`)
      }
    }
    const trackSpellings = ['/v1/track', ...spellingsOf('/v1/track').filter((s) => s.routes).map((s) => s.path)]
    expect(answered.sort()).toEqual(trackSpellings.map((path) => `${path}: 204`).sort())
    expect(trackSpellings).toContain('/v1/track/')
  }, 120_000)
})
