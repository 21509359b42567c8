// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { describeInBrowser, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * What a browser does with Mailstead's CORS answers: a page served from another origin tracks an
 * event with the public key, and cannot call a secret-key route, nor read its answer.
 */

let w: ConsoleWorld
let keys: { secretKey: string; publicKey: string; id: number }
let site: ReturnType<typeof Bun.serve>

describeInBrowser('cross-origin calls from a web page in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
    keys = await w.t.project()
    // Another origin: another port on loopback, serving a blank page.
    site = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('<!doctype html><title>Shop</title>', { headers: { 'content-type': 'text/html' } }) })
  })
  afterAll(async () => {
    site?.stop(true)
    await w?.close()
  })

  test('/v1/track works with the public key; a secret-key route is blocked and writes nothing', async () => {
    const page = await w.open('desktop', `http://127.0.0.1:${site.port}/`)
    const call = (path: string, key: string, method: string, body?: unknown) =>
      page.evaluate(
        async ({ url, key, method, body }) => {
          try {
            const response = await fetch(url, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
            return { status: response.status, body: await response.json() }
          } catch (error) {
            return { blocked: String(error) }
          }
        },
        { url: `${w.url}${path}`, key, method, body },
      )

    const tracked = await call('/v1/track', keys.publicKey, 'POST', { email: 'visitor@example.com', event: 'viewed-pricing' })
    expect(tracked).toMatchObject({ status: 200, body: { success: true, data: { event: 'viewed-pricing' } } })
    // A refusal is readable too, so the page can say why.
    expect(await call('/v1/track', 'pk_wrong', 'POST', { email: 'visitor@example.com', event: 'x' })).toMatchObject({ status: 401 })

    expect(await call('/api/v1/emails', keys.secretKey, 'GET')).toEqual({ blocked: 'TypeError: Failed to fetch' })
    expect(await call('/contacts', keys.secretKey, 'POST', { email: 'forged@example.com' })).toEqual({ blocked: 'TypeError: Failed to fetch' })
    const contacts = await w.t.request('GET', '/contacts', { key: keys.secretKey })
    expect(JSON.stringify(contacts.body)).not.toContain('forged@example.com')
    await page.context().close()
    // The blocked calls are logged by Chromium as CORS errors: those are what this test expects.
    expect(w.problems.filter((problem) => !/CORS policy|Failed to load resource/.test(problem))).toEqual([])
  })
})
