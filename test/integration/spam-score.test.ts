// @database-incidental: how SpamAssassin scores the mail sent; the database only stands behind the send
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseMime, textOf } from '../helpers/sending.ts'
import { captureLetters, hasSpamAssassin, SPAMASSASSIN, spamScore } from '../helpers/spam-score.ts'
import { createWorld, type World } from '../helpers/world.ts'

// Debian's SpamAssassin with local rules only (no network tests), on what the fake MX received.
const skip = !hasSpamAssassin()
if (skip) console.warn(`spam-score.test.ts: skipped, ${SPAMASSASSIN} is absent (apt-get install spamassassin)`)

let w: World
let letters: { reset: string; newsletter: string }

beforeAll(async () => {
  if (skip) return
  w = await createWorld({ settings: { 'public-url': 'https://mail.sender.example.com' } })
  letters = await captureLetters(w)
})

afterAll(() => w?.close())

/** The links of the HTML part, mailto's as their address: what the text part must name too. */
function linksOf(raw: string) {
  const message = parseMime(raw)
  const html = textOf(message, 'text/html')!
  const text = textOf(message, 'text/plain')!
  const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&').replace(/^mailto:([^?]+).*$/, '$1'))
  return { hrefs, text }
}

describe.skipIf(skip)('what SpamAssassin thinks of the mail Mailstead sends', () => {
  test('a password reset sent with /v1/send scores at most 0.5', async () => {
    const { score, rules } = await spamScore(letters.reset)
    console.info(`password reset: ${score} ${JSON.stringify(rules)}`)
    expect(score).toBeLessThanOrEqual(0.5)
  }, 30_000)

  test('a campaign letter of ordinary length scores at most 1.0', async () => {
    const { score, rules } = await spamScore(letters.newsletter)
    console.info(`newsletter: ${score} ${JSON.stringify(rules)}`)
    expect(score).toBeLessThanOrEqual(1)
  }, 30_000)

  test.each(['reset', 'newsletter'] as const)('the %s text part names every link of the HTML, and hides what the HTML hides', (name) => {
    const { hrefs, text } = linksOf(letters[name])
    expect(hrefs.length).toBeGreaterThan(0)
    for (const href of hrefs) expect(text).toContain(href)
    expect(text).not.toContain('?subject=')
    expect(text).not.toContain('Faster exports, shared folders and a new mobile app.')
    expect(text).not.toMatch(/^[A-Z ]{8,}$/m)
  })
})

// The measure: the same letters from a domain with every tracking switch on.
describe.skipIf(skip)('what SpamAssassin thinks of them from a domain that tracks opens and clicks', () => {
  let tracking: World
  let tracked: { reset: string; newsletter: string }
  const allOn = { openTracking: true, clickTracking: true, transactionalOpenTracking: true, transactionalClickTracking: true }

  beforeAll(async () => {
    if (skip) return
    tracking = await createWorld({ settings: { 'public-url': 'https://mail.sender.example.com' } })
    await tracking.t.request('PATCH', `/domains/${tracking.domain.id}`, { key: tracking.key, body: allOn })
    tracked = await captureLetters(tracking)
  })

  afterAll(() => tracking?.close())

  test('the password reset scores at most 0.5: its reset link is as written, and no pixel', async () => {
    const html = textOf(parseMime(tracked.reset), 'text/html')!
    expect(html).toContain('href="https://app.acme.example/reset?token=3f9a2c7d1b"')
    expect(html).not.toContain('/t/o/')
    const { score, rules } = await spamScore(tracked.reset)
    console.info(`password reset, tracked domain: ${score} ${JSON.stringify(rules)}`)
    expect(score).toBeLessThanOrEqual(0.5)
  }, 30_000)

  test('the campaign letter scores at most 1.0, its links tracked', async () => {
    expect(textOf(parseMime(tracked.newsletter), 'text/html')).toContain('https://mail.sender.example.com/t/c/')
    const { score, rules } = await spamScore(tracked.newsletter)
    console.info(`newsletter, tracked domain: ${score} ${JSON.stringify(rules)}`)
    expect(score).toBeLessThanOrEqual(1)
  }, 30_000)
})
