// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

/** The asset paths index.html names, scripts and styles. */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!)

describe('the console is served under /console/', () => {
  test('/console/ is the app: one inline script (the theme) allowed by its hash alone, a strict policy, revalidated at each load', async () => {
    const { status, headers, body } = await t.request('GET', '/console/', { headers: BROWSER })
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(headers.get('cache-control')).toBe('no-cache')
    expect(headers.get('referrer-policy')).toBe('same-origin')
    expect(headers.get('x-content-type-options')).toBe('nosniff')
    expect(headers.get('x-request-id')).toBeTruthy()
    const csp = headers.get('content-security-policy')!
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'", "frame-ancestors 'none'"]) {
      expect(csp).toContain(directive)
    }
    expect(csp).not.toContain('unsafe')
    // One inline script, the theme's, first in the head and allowed by its hash; every other has a src.
    const inline = [...body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!)
    expect(inline).toHaveLength(1)
    expect(inline[0]).toContain('mailstead.theme')
    expect(body.indexOf('<script>')).toBeLessThan(body.indexOf('<style>'))
    expect(csp).toContain(`script-src 'self' 'sha256-${new Bun.CryptoHasher('sha256').update(inline[0]!).digest('base64')}'`)
    for (const tag of body.match(/<script\b[^>]*>/g) ?? []) if (tag !== '<script>') expect(tag).toContain('src="/console/assets/')
    expect(assetsOf(body).some((path) => path.endsWith('.js'))).toBe(true)
    expect(assetsOf(body).some((path) => path.endsWith('.css'))).toBe(true)
  })

  test('/console/ paints its shell at once: one inline style, allowed by its hash alone, and the stylesheets after the shell', async () => {
    const { headers, body } = await t.request('GET', '/console/', { headers: BROWSER })
    const styles = [...body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!)
    expect(styles).toHaveLength(1)
    const hash = new Bun.CryptoHasher('sha256').update(styles[0]!).digest('base64')
    const csp = headers.get('content-security-policy')!
    expect(csp).toContain(`style-src 'self' 'sha256-${hash}';`)
    expect(csp).not.toContain('unsafe')
    // The shell is in the page itself, inside #root, which the app replaces.
    expect(body).toMatch(/<div id="root"><div class="boot" data-shell/)
    expect(body).toContain('Loading the console…')
    // No stylesheet in the head (it would hold back the first paint); they come after the shell.
    const head = body.slice(0, body.indexOf('</head>'))
    expect(head).not.toMatch(/rel="?stylesheet/)
    expect(body.indexOf('rel="stylesheet"')).toBeGreaterThan(body.indexOf('data-shell'))
    // Assets keep the plain policy: no inline style is allowed there.
    const css = assetsOf(body).find((path) => path.endsWith('.css'))!
    const asset = await t.app.handle(new Request(`http://localhost${css}`))
    expect(asset.headers.get('content-security-policy')).toContain("style-src 'self';")
  })

  test('assets have hashed names, are cached for a year and come gzipped to a client that takes it', async () => {
    const { body: html } = await t.request('GET', '/console/')
    for (const path of assetsOf(html)) {
      const plain = await t.app.handle(new Request(`http://localhost${path}`))
      expect(plain.status).toBe(200)
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(plain.headers.get('content-type')).toMatch(path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/)
      expect(plain.headers.get('content-security-policy')).toContain("script-src 'self'")
      const text = await plain.text()
      const zipped = await t.app.handle(new Request(`http://localhost${path}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } }))
      expect(zipped.headers.get('content-encoding')).toBe('gzip')
      expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await zipped.arrayBuffer())))).toBe(text)
    }
  })

  test('any other address under /console/ is the app too, so that a reloaded page shows itself', async () => {
    const { body: index } = await t.request('GET', '/console/')
    for (const path of ['/console/emails', '/console/emails/em_123?tab=events', '/console/setup', '/console/no/such/page']) {
      const { status, headers, body } = await t.request('GET', path, { headers: BROWSER })
      expect({ path, status, type: headers.get('content-type') }).toEqual({ path, status: 200, type: 'text/html; charset=utf-8' })
      expect(body).toBe(index)
    }
    const bare = await t.request('GET', '/console')
    expect(bare.status).toBe(301)
    expect(bare.headers.get('location')).toBe('/console/')
  })

  test('a missing asset is a 404 with the API error body, not the app', async () => {
    const { status, body } = await t.request('GET', '/console/assets/nothing-here.js')
    expect(status).toBe(404)
    expect(body).toMatchObject({ success: false, code: 'NOT_FOUND', message: 'No route for GET /console/assets/nothing-here.js' })
  })
})

describe('GET / and the API keep their answers', () => {
  test('a browser asking for / is sent to the console', async () => {
    const { status, headers } = await t.request('GET', '/', { headers: BROWSER })
    expect(status).toBe(302)
    expect(headers.get('location')).toBe('/console/')
    expect(headers.get('x-request-id')).toBeTruthy()
  })

  test('an API client asking for / gets the 404 it always got', async () => {
    for (const headers of [{}, { accept: 'application/json' }, { accept: '*/*' }] as Record<string, string>[]) {
      const { status, body } = await t.request('GET', '/', { headers })
      expect(status).toBe(404)
      expect(body).toMatchObject({ success: false, code: 'NOT_FOUND', message: 'No route for GET /' })
    }
    const posted = await t.request('POST', '/', { headers: BROWSER, body: {} })
    expect(posted.status).toBe(404)
  })

  test('paths beside /console/ are not the console, and the OpenAPI document does not list it', async () => {
    for (const path of ['/consoles', '/console.js', '/api/v1/console']) {
      const { status } = await t.request('GET', path, { headers: BROWSER })
      expect({ path, status }).toEqual({ path, status: 404 })
    }
    const { body } = await t.request('GET', '/swagger/json')
    expect(Object.keys(body.paths).filter((path) => path === '/' || path.startsWith('/console'))).toEqual([])
    const health = await t.request('GET', '/health', { headers: BROWSER })
    expect(health.status).toBe(200)
    expect(health.body.status).toBe('ok')
  })
})
