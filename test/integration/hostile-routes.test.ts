// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createLogger } from '../../src/lib/logger.ts'
import { HOSTILE_BODIES, HOSTILE_SEGMENTS, hostileQueries, POLLUTING_QUERIES } from '../helpers/hostile.ts'
import { clearCapped, createFixtures, SEEDS, type Ids } from '../helpers/hostile-fixtures.ts'
import { mutatedBodies, pathOf, routesOf, Walker, type Route } from '../helpers/hostile-walk.ts'
import { fieldsOf, sampleOf } from '../helpers/openapi-sample.ts'
import { createWorld, type World } from '../helpers/world.ts'

/**
 * An attacker's walk over every route of the OpenAPI document, with a valid key: hostile bodies,
 * field values, path and query parameters. Nothing may answer 5xx, every error has the API's error
 * body, and the server logs no error while it happens.
 */

let w: World
let routes: Route[]
const logged: string[] = []
let fixtures = 0

beforeAll(async () => {
  const logger = createLogger('error', (line) => logged.push(line.slice(0, 2000)))
  w = await createWorld({ logger, settings: { 'rate-limit-per-minute': '10000000', 'webhook-allow-private-targets': 'true' } })
  routes = routesOf((await w.t.request('GET', '/swagger/json', { key: w.key })).body)
  await w.t.request('POST', '/contacts', { key: w.key, body: { email: 'fixture@example.net' } })
})

afterAll(() => w.close())

/** Fresh things for the route's path to name (a DELETE before it may have removed the last ones). */
async function idsFor(route: Route): Promise<Ids> {
  return route.template.includes('{') ? createFixtures(w, route.template, fixtures++) : {}
}

async function walk(each: (walker: Walker, route: Route, ids: Ids) => Promise<void>) {
  const walker = new Walker(w.t.app, w.key)
  logged.length = 0
  for (const route of routes) {
    await each(walker, route, await idsFor(route))
    await clearCapped(w)
  }
  await w.deliver()
  // A body or query that reached Object.prototype would show on every object from then on.
  expect(({} as Record<string, unknown>).polluted ?? ({} as Record<string, unknown>).admin).toBeUndefined()
  return walker
}

const json = 'application/json'
const TIMEOUT = 600_000

describe('every route of the OpenAPI document, attacked with a valid key', () => {
  test('the document lists the routes', () => {
    expect(routes.length).toBeGreaterThan(90)
  })

  test('the sensible bodies the walk starts from are accepted, so hostile values in them reach the code behind the schema', async () => {
    const refused: string[] = []
    for (const route of routes.filter((r) => SEEDS[`${r.method} ${r.template}`])) {
      const path = pathOf(route.template, await idsFor(route))
      const response = await w.t.request(route.method, path, { key: w.key, body: SEEDS[`${route.method} ${route.template}`] })
      if (response.status >= 300) refused.push(`${route.method} ${route.template}: ${response.status} ${response.body.message}`)
      await clearCapped(w)
    }
    // Its contact book is made per walk: the seed names none, and is refused after the schema.
    expect(refused).toEqual(['post /api/v1/campaigns: 422 contactBookId: no contact book with this id in this project'])
  })

  test('hostile whole bodies', async () => {
    const walker = await walk(async (walker, route, ids) => {
      for (const [label, raw] of HOSTILE_BODIES) await walker.send(route.method, pathOf(route.template, ids), raw, label)
    })
    expect(walker.problems).toEqual([])
    expect(logged).toEqual([])
  }, TIMEOUT)

  test('a hostile value in each field of a body the route accepts', async () => {
    const walker = await walk(async (walker, route, ids) => {
      if (!route.body) return
      const base = SEEDS[`${route.method} ${route.template}`] ?? sampleOf(route.body)
      for (const [label, body] of mutatedBodies(base, Object.keys(fieldsOf(route.body)))) {
        await walker.send(route.method, pathOf(route.template, ids), { body, contentType: json }, label)
      }
    })
    expect(walker.problems).toEqual([])
    expect(logged).toEqual([])
  }, TIMEOUT)

  test('hostile path parameters', async () => {
    const walker = await walk(async (walker, route, ids) => {
      const body = route.body && JSON.stringify(SEEDS[`${route.method} ${route.template}`] ?? sampleOf(route.body))
      for (const param of route.params.filter((p) => p.in === 'path')) {
        for (const value of HOSTILE_SEGMENTS) {
          await walker.send(route.method, pathOf(route.template, { ...ids, [param.name]: value }), { body, contentType: json }, `${param.name}=${value.slice(0, 40)}`)
        }
      }
    })
    expect(walker.problems).toEqual([])
    expect(logged).toEqual([])
  }, TIMEOUT)

  test('hostile query parameters, and parameters that would pollute prototypes', async () => {
    const walker = await walk(async (walker, route, ids) => {
      const names = route.params.filter((p) => p.in === 'query').map((p) => p.name)
      for (const query of [...names.flatMap(hostileQueries), ...POLLUTING_QUERIES]) {
        await walker.send(route.method, `${pathOf(route.template, ids)}?${query}`, {}, query.slice(0, 60))
      }
    })
    expect(walker.problems).toEqual([])
    expect(logged).toEqual([])
  }, TIMEOUT)

  test('the routes the document leaves out: tracking, unsubscribe, metrics, unknown paths', async () => {
    const walker = new Walker(w.t.app, w.key)
    const paths = ['/t/o/{token}', '/t/c/{token}', '/unsubscribe/{token}', '/unsubscribe/{token}/resubscribe', '/metrics', '/nowhere/{token}']
    for (const template of paths) {
      for (const method of ['GET', 'POST']) {
        for (const value of HOSTILE_SEGMENTS) {
          await walker.send(method, `${pathOf(template, { token: value })}?u=${value}`, { body: 'a=%ED%A0%80', contentType: 'application/x-www-form-urlencoded' }, value.slice(0, 40), false)
        }
      }
    }
    expect(walker.problems).toEqual([])
  }, TIMEOUT)
})
