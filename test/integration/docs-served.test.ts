// @database-incidental: the documentation and what it promises; the database only stands behind the examples
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SOURCES_MODULE, sourcesModule } from '../../scripts/docs-sources.ts'
import { DOCS_HEADERS } from '../../src/http/docs/doc-layout.ts'
import { DOC_PAGES, RESERVED, routeOf } from '../../src/http/docs/doc-pages.ts'
import { docHtml } from '../../src/http/docs/doc-html.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { markdownPages, relativeLinks } from '../helpers/markdown.ts'

/*
 * The documentation served at /docs, through HTTP against the app: every page of the repository is
 * there, every link between them leads to a served page and an anchor on it, the search finds what
 * the pages say, and what Markdown lets through as HTML is made safe.
 */

const ROOT = join(import.meta.dir, '..', '..')
let t: TestApp
/** Each served page's HTML by route, fetched once. */
const served = new Map<string, { status: number; html: string }>()

async function get(route: string): Promise<{ status: number; html: string }> {
  let answer = served.get(route)
  if (!answer) {
    const response = await t.request('GET', route)
    answer = { status: response.status, html: String(response.body) }
    served.set(route, answer)
  }
  return answer
}

const hrefsOf = (html: string) => [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'))
const idsOf = (html: string) => new Set([...html.matchAll(/ id="([^"]*)"/g)].map((match) => match[1]!))

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(async () => {
  await t.close()
})

describe('the documentation at /docs', () => {
  test('the server carries every page of the checkout (regenerate: bun scripts/docs-sources.ts --write)', () => {
    expect(readFileSync(join(ROOT, SOURCES_MODULE), 'utf8')).toBe(sourcesModule(ROOT))
    expect(DOC_PAGES.map((page) => page.path)).toEqual(markdownPages(ROOT))
    const routes = DOC_PAGES.map((page) => page.route)
    expect(new Set(routes).size).toBe(routes.length)
    expect(routes.filter((route) => RESERVED.has(route))).toEqual([])
  })

  test('every page is served with its title, with no sign-in, under a policy that allows no script', async () => {
    expect(routeOf('README.md')).toBe('/docs')
    expect(routeOf('docs/features/sending.md')).toBe('/docs/features/sending')
    expect(routeOf('docs/decisions/README.md')).toBe('/docs/decisions')
    for (const page of DOC_PAGES) {
      const response = await t.request('GET', page.route)
      expect([page.route, response.status]).toEqual([page.route, 200])
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(response.headers.get('content-security-policy')).toBe(DOCS_HEADERS['content-security-policy'])
      const html = String(response.body)
      expect(html).toContain('<h1 id="')
      expect(html).not.toContain('<script')
      expect(html).not.toContain('<style')
      served.set(page.route, { status: 200, html })
    }
    expect(DOCS_HEADERS['content-security-policy']).not.toContain('script-src')
    expect(DOCS_HEADERS['content-security-policy']).not.toContain('unsafe-inline')
  })

  test('every link between served pages leads to a served page and to an anchor there', async () => {
    const broken: string[] = []
    let followed = 0
    for (const page of DOC_PAGES) {
      const { html } = await get(page.route)
      for (const href of hrefsOf(html)) {
        if (/^(https?|mailto):/.test(href) || href === '/swagger' || href === '/console/') continue
        const [route, anchor] = href.split('#', 2) as [string, string | undefined]
        if (!route.startsWith('/docs')) {
          broken.push(`${page.path}: ${href} is not a route of the served documentation`)
          continue
        }
        if (route.startsWith('/docs/search')) continue
        followed++
        const target = await get(route)
        if (target.status !== 200) broken.push(`${page.path}: ${href} answers ${target.status}`)
        else if (anchor !== undefined && !idsOf(target.html).has(anchor)) broken.push(`${page.path}: ${href} has no heading #${anchor}`)
      }
    }
    expect(broken).toEqual([])
    // The nav's links and, beside them, every link written in the pages.
    const written = DOC_PAGES.flatMap((page) => relativeLinks(page.text)).length
    expect(followed).toBeGreaterThanOrEqual(DOC_PAGES.length * DOC_PAGES.length + written)
  })

  test('a folder without a page of its own lists its pages; a trailing slash is sent to the address without it', async () => {
    const features = await get('/docs/features')
    expect(features.status).toBe(200)
    expect(hrefsOf(features.html)).toContain('/docs/features/sending')
    const slashed = await t.request('GET', '/docs/features/')
    expect(slashed.status).toBe(301)
    expect(slashed.headers.get('location')).toBe('/docs/features')
  })

  test('the search lists the pages that hold a word, with the lines that hold it, each linked to its heading', async () => {
    const response = await t.request('GET', '/docs/search?q=SKIP%20LOCKED')
    expect(response.status).toBe(200)
    const html = String(response.body)
    expect(html).toContain('<a href="/docs/architecture">Architecture</a>')
    expect(html).toContain('<mark>SKIP LOCKED</mark>')
    expect(hrefsOf(html)).toContain('/docs/architecture#the-claim-protocol')
    expect(html).toContain('value="SKIP LOCKED"')
    const none = String((await t.request('GET', '/docs/search?q=zqxjkv-nowhere')).body)
    expect(none).toContain('No page holds')
    const empty = await t.request('GET', '/docs/search')
    expect(empty.status).toBe(200)
    expect(String(empty.body)).toContain('<form method="get" action="/docs/search"')
  })

  test("every line the search finds links to its page's heading above it", async () => {
    const html = String((await t.request('GET', '/docs/search?q=the')).body)
    const links = hrefsOf(html).filter((href) => href.includes('#'))
    expect(links.length).toBeGreaterThan(DOC_PAGES.length)
    const broken: string[] = []
    for (const href of new Set(links)) {
      const [route, anchor] = href.split('#', 2) as [string, string]
      if (!idsOf((await get(route)).html).has(anchor)) broken.push(href)
    }
    expect(broken).toEqual([])
  })

  test('the search escapes what it is given', async () => {
    const html = String((await t.request('GET', `/docs/search?q=${encodeURIComponent('<script>alert(1)</script>')}`)).body)
    expect(html).not.toContain('<script>alert(1)')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })

  test('an unknown page is a 404 page with the list of pages', async () => {
    const response = await t.request('GET', '/docs/no-such-page')
    expect(response.status).toBe(404)
    expect(String(response.body)).toContain('<a href="/docs/architecture">')
    expect((await t.request('GET', '/docs/features/no-such-page')).status).toBe(404)
  })

  test('the stylesheet is served, light and dark', async () => {
    const response = await t.request('GET', '/docs/style.css')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8')
    expect(String(response.body)).toContain('prefers-color-scheme: dark')
  })
})

describe("a page's Markdown as HTML", () => {
  test('HTML in the Markdown is made safe as in a Markdown email body: scripts, handlers and javascript: addresses go', () => {
    const html = docHtml(
      'docs/x.md',
      '# Title\n\n<script>alert(1)</script>\n\n<img src="x.png" onerror="alert(1)"> <a href="javascript:alert(1)">here</a> <iframe src="https://example.com"></iframe>\n',
    )
    expect(html).not.toContain('<script')
    expect(html).not.toContain('alert(1)')
    expect(html).not.toContain('onerror')
    expect(html).not.toContain('javascript:')
    expect(html).not.toContain('<iframe')
    expect(html).toContain('<h1 id="title">Title</h1>')
  })

  test("headings get GitHub's anchors, a repeated one numbered; links lead to routes; a file not served keeps only its text", () => {
    const html = docHtml(
      'docs/features/sending.md',
      '# Sending\n\n## Retries\n\n## Retries\n\n[a](../operations/deploy.md#tls) [b](../../README.md) [c](../decisions/) [d](#retries) [e](../../src/app.ts) [f](https://example.com)\n',
    )
    expect(html).toContain('<h2 id="retries">Retries</h2>')
    expect(html).toContain('<h2 id="retries-1">Retries</h2>')
    expect(hrefsOf(html)).toEqual(['/docs/operations/deploy#tls', '/docs', '/docs/decisions', '/docs/features/sending#retries', 'https://example.com'])
    expect(html).toContain(' e ')
  })
})
