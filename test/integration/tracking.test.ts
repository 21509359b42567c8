// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { signToken } from '../../src/lib/signed.ts'
import { asCampaignEmail, campaignCounts } from '../helpers/campaign-row.ts'
import { emailOf, receivedBy, SECRET, statusesOf, textOf } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

const BASE = 'https://mail.example.org'
let w: World

beforeAll(async () => {
  w = await createWorld({ settings: { 'public-url': `${BASE}/` } })
})

afterAll(() => w.close())

/** The domain's switches for transactional mail, which these sends are (its marketing ones stay off). */
const setTracking = (flags: { openTracking?: boolean; clickTracking?: boolean }) =>
  w.t.request('PATCH', `/domains/${w.domain.id}`, { key: w.key, body: { transactionalOpenTracking: flags.openTracking, transactionalClickTracking: flags.clickTracking } })

// With an image of its own: the pixel costs it no spam points, so the domain's switch adds it (pixel-cost.ts).
const HTML = [
  '<html><body>',
  '<p><img src="https://cdn.example.com/logo.png" alt="Shop"></p>',
  '<p><a href="https://shop.example.com/order?id=7&amp;ref=mail" class="button">Your order</a></p>',
  "<p><A HREF='http://help.example.com/'>Help</A> or <a href=\"mailto:help@example.com\">write</a> or <a href=\"#top\">top</a></p>",
  '</body></html>',
].join('\n')

/** Sends HTML to a fresh recipient through useSend's API, delivers it, and gives the HTML received. */
async function sendAndReceive(html = HTML) {
  const to = `reader-${Bun.randomUUIDv7()}@example.net`
  const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Tracked', html } })
  expect(sent.status).toBe(200)
  await w.deliver()
  return { emailId: sent.body.emailId as string, to, html: textOf(receivedBy(w, to), 'text/html')! }
}

/** The path of each tracking URL in a message, in order. */
const trackingPaths = (html: string, kind: 'o' | 'c') =>
  [...html.matchAll(new RegExp(`${BASE.replace(/\./g, '\\.')}(/t/${kind}/[A-Za-z0-9_-]+)`, 'g'))].map((m) => m[1]!)

const get = (path: string, headers: Record<string, string> = {}) => w.t.app.handle(new Request(`http://localhost${path}`, { headers }))

describe('open and click tracking of transactional mail', () => {
  test('with both on, links go through the server and a pixel reports the open; the API shows the html as given', async () => {
    await setTracking({ openTracking: true, clickTracking: true })
    const { emailId, html } = await sendAndReceive()
    expect(trackingPaths(html, 'c')).toHaveLength(2)
    expect(trackingPaths(html, 'o')).toHaveLength(1)
    expect(html).toContain('href="mailto:help@example.com"')
    expect(html).toContain('href="#top"')
    expect(html).toContain('class="button"')
    expect(html).not.toContain('shop.example.com')
    expect(html).toMatch(/<img src="https:\/\/mail\.example\.org\/t\/o\/[^"]+"[^>]*>\n?<\/body>/)
    expect((await emailOf(w, emailId)).html).toBe(HTML)
  })

  test('the pixel answers a transparent GIF, uncached, and each fetch is an OPENED event', async () => {
    await setTracking({ openTracking: true, clickTracking: true })
    const { emailId, html } = await sendAndReceive()
    const [pixel] = trackingPaths(html, 'o')
    for (const agent of ['Mail/1.0', 'Mail/2.0']) {
      const response = await get(pixel!, { 'user-agent': agent })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('image/gif')
      expect(response.headers.get('cache-control')).toContain('no-store')
      const bytes = new Uint8Array(await response.arrayBuffer())
      expect(bytes).toHaveLength(43)
      expect(Buffer.from(bytes.subarray(0, 6)).toString('latin1')).toBe('GIF89a')
    }
    const email = await emailOf(w, emailId)
    const opens = email.emailEvents.filter((e: any) => e.status === 'OPENED')
    expect(opens.map((e: any) => e.data)).toEqual([{ userAgent: 'Mail/1.0' }, { userAgent: 'Mail/2.0' }])
  })

  test('a tracked link redirects to the link as written, entities decoded, and records CLICKED', async () => {
    await setTracking({ openTracking: true, clickTracking: true })
    const { emailId, html } = await sendAndReceive()
    const [order, help] = trackingPaths(html, 'c')
    const first = await get(order!, { 'user-agent': 'Browser/1' })
    expect(first.status).toBe(302)
    expect(first.headers.get('location')).toBe('https://shop.example.com/order?id=7&ref=mail')
    expect((await get(help!)).headers.get('location')).toBe('http://help.example.com/')
    const email = await emailOf(w, emailId)
    expect(email.emailEvents.filter((e: any) => e.status === 'CLICKED').map((e: any) => e.data)).toEqual([
      { url: 'https://shop.example.com/order?id=7&ref=mail', userAgent: 'Browser/1' },
      { url: 'http://help.example.com/' },
    ])
    expect(email.status).toBe('CLICKED')
  })

  test('with both off, the HTML goes out as written', async () => {
    await setTracking({ openTracking: false, clickTracking: false })
    const { html } = await sendAndReceive()
    expect(html).toContain('href="https://shop.example.com/order?id=7&amp;ref=mail"')
    expect(trackingPaths(html, 'o')).toEqual([])
    expect(trackingPaths(html, 'c')).toEqual([])
  })

  test('opens alone: a pixel, links untouched; clicks alone: links, no pixel', async () => {
    await setTracking({ openTracking: true, clickTracking: false })
    const opensOnly = (await sendAndReceive()).html
    expect([trackingPaths(opensOnly, 'o').length, trackingPaths(opensOnly, 'c').length]).toEqual([1, 0])
    await setTracking({ openTracking: false, clickTracking: true })
    const clicksOnly = (await sendAndReceive()).html
    expect([trackingPaths(clicksOnly, 'o').length, trackingPaths(clicksOnly, 'c').length]).toEqual([0, 2])
  })

  test("Plunk's send is tracked the same way", async () => {
    await setTracking({ openTracking: true, clickTracking: true })
    const to = `plunk-${Bun.randomUUIDv7()}@example.net`
    const sent = await w.t.request('POST', '/v1/send', { key: w.key, body: { to, from: 'ada@sender.example.com', subject: 'Hi', body: HTML } })
    expect(sent.status).toBe(200)
    await w.deliver()
    const html = textOf(receivedBy(w, to), 'text/html')!
    expect([trackingPaths(html, 'o').length, trackingPaths(html, 'c').length]).toEqual([1, 2])
  })

  test('a campaign counts its recipient once, however often they open and click', async () => {
    await setTracking({ openTracking: true, clickTracking: true })
    const { emailId, to, html } = await sendAndReceive()
    const contact = await w.t.request('POST', '/contacts', { key: w.key, body: { email: to } })
    const campaignId = await asCampaignEmail(w, emailId, contact.body.id)
    for (const path of [...trackingPaths(html, 'o'), ...trackingPaths(html, 'o'), ...trackingPaths(html, 'c')]) await get(path)
    expect(await campaignCounts(w, campaignId)).toEqual({ opened: 1, clicked: 1, unsubscribed: 0 })
  })
})

describe('links that are not ours', () => {
  test.each([
    ['an open token with a changed signature', (html: string) => trackingPaths(html, 'o')[0]!.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'))],
    ['a click token with a changed URL', (html: string) => trackingPaths(html, 'c')[0]!.replace('/t/c/', '/t/c/A')],
    ['a click token used as an open token', (html: string) => trackingPaths(html, 'c')[0]!.replace('/t/c/', '/t/o/')],
    ['an open token used as a click token', (html: string) => trackingPaths(html, 'o')[0]!.replace('/t/o/', '/t/c/')],
    ['garbage', () => '/t/c/not-a-token'],
    ['a signed open token of no email', () => `/t/o/${signToken(SECRET, 'open', Bun.randomUUIDv7())}`],
    ['a signed click token of no email', () => `/t/c/${signToken(SECRET, 'click', Buffer.from(`${Bun.randomUUIDv7()}\nhttps://evil.example/`).toString('base64url'))}`],
  ])('%s: a 404 page, no redirect, no event', async (_, pathOf) => {
    await setTracking({ openTracking: true, clickTracking: true })
    const { emailId, html } = await sendAndReceive()
    const before = statusesOf(await emailOf(w, emailId))
    const response = await get(pathOf(html))
    expect(response.status).toBe(404)
    expect(response.headers.get('location')).toBeNull()
    expect(response.headers.get('content-type')).toStartWith('text/html')
    expect(await response.text()).toContain('This link is not valid')
    expect(statusesOf(await emailOf(w, emailId))).toEqual(before)
  })
})
