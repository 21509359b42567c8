// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { suppress } from '../../src/core/suppressions/suppressions.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { publishRecords } from '../helpers/domains.ts'
import type { FakeDns } from '../helpers/fake-dns.ts'
import type { FakeMx } from '../helpers/fake-mx.ts'
import { startRecipients } from '../helpers/recipients.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld, type Width } from './harness.ts'
import { feedBounce, feedComplaint, feedDmarcReport } from './report-feed.ts'

/*
 * Both themes on every page: real mail (delivered, bounced, deferred) through a fake MX, a verified
 * domain, a webhook, a suppression and reports received over SMTP (a DMARC aggregate, a bounce, a
 * complaint), so that each page shows rows, badges and a chart. Each page at 1280 and 390 pixels,
 * with Chromium's system scheme light and dark: axe-core finds nothing (WCAG AA contrast included)
 * and a screenshot is saved. Then the shell's theme switch: picked, applied at once, remembered
 * across a reload before the first paint, and given back to the system.
 */

let w: ConsoleWorld
let dns: FakeDns
let mx: FakeMx
let contactId: string
let emailId: string
let domainId: string
let webhookId: string
let segmentId: string

/** Every signed-in page: its address, its h1 and the name of its screenshot. */
const pages = () => [
  { path: '/console/', heading: 'Overview', shot: 'theme-overview' },
  { path: '/console/emails', heading: 'Emails', shot: 'theme-emails' },
  { path: `/console/emails/${emailId}`, heading: 'Welcome aboard', shot: 'theme-email' },
  { path: `/console/contacts/${contactId}`, heading: 'ann@example.net', shot: 'theme-contact' },
  { path: '/console/domains', heading: 'Domains', shot: 'theme-domains' },
  { path: `/console/domains/${domainId}`, heading: 'sender.example.com', shot: 'theme-domain' },
  { path: '/console/suppressions', heading: 'Suppressions', shot: 'theme-suppressions' },
  { path: '/console/contacts', heading: 'Contacts', shot: 'theme-contacts' },
  { path: '/console/contacts/import', heading: 'Import contacts', shot: 'theme-contact-import' },
  { path: '/console/reports', heading: 'Reports', shot: 'theme-reports-dmarc' },
  { path: '/console/reports/bounces', heading: 'Reports', shot: 'theme-reports-bounces' },
  { path: '/console/queue', heading: 'Queue', shot: 'theme-queue' },
  { path: '/console/webhooks', heading: 'Webhooks', shot: 'theme-webhooks' },
  { path: `/console/webhooks/${webhookId}`, heading: 'Webhook', shot: 'theme-webhook' },
  { path: '/console/segments', heading: 'Segments', shot: 'theme-segments' },
  { path: `/console/segments/${segmentId}`, heading: 'Signed up lately', shot: 'theme-segment' },
  { path: '/console/api-keys', heading: 'API keys', shot: 'theme-api-keys' },
  { path: '/console/smtp', heading: 'SMTP relay', shot: 'theme-smtp' },
  { path: '/console/settings', heading: 'Settings', shot: 'theme-settings' },
  { path: '/console/account', heading: 'Your account', shot: 'theme-account' },
]

/** The page's background colour as the browser paints it. */
const background = (page: Page) => page.evaluate('getComputedStyle(document.body).backgroundColor') as Promise<string>
/** "rgb(r, g, b)" is dark when its channels average under half. */
const isDark = (rgb: string) => (rgb.match(/\d+/g) ?? []).slice(0, 3).reduce((sum, n) => sum + Number(n), 0) / 3 < 128

describeInBrowser('the console in its light and dark themes', () => {
  beforeAll(async () => {
    const recipients = await startRecipients({ onRcpt: (to) => (to.startsWith('gone') ? { code: 550, message: '5.1.1 No such user' } : to.startsWith('busy') ? { code: 451, message: '4.2.1 Try again later' } : undefined) })
    dns = recipients.dns
    mx = recipients.mx
    dns.records('hooks.example.net', { type: 'A', address: '127.0.0.3' })
    w = await startConsoleWorld({
      ...recipients.settings,
      hostname: 'mx.mailstead.test',
      'public-ips': '192.0.2.25',
      'mx-port': '0',
      'smtp-timeout-seconds': '1',
      'delivery-attempt-timeout-seconds': '5',
      'send-rate-per-second': '10000',
      'webhook-allow-private-targets': 'true',
    })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    const request = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: project.secretKey, body })
    const domain = await request('POST', '/api/v1/domains', { name: 'sender.example.com', region: 'us-east-1' })
    domainId = String(domain.body.id)
    publishRecords(dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    for (const to of ['ann@example.net', 'gone@example.net', 'busy@example.net', 'bob@example.net']) {
      const sent = await request('POST', '/api/v1/emails', { from: 'Ada <ada@sender.example.com>', to, subject: 'Welcome aboard', html: '<p>Hi there</p>', text: 'Hi there' })
      expect(sent.status).toBe(200)
      emailId ??= sent.body.emailId
    }
    // A contact with data, a tracked event and an edit: its page has rows in its form and its timeline.
    const contact = await request('POST', '/contacts', { email: 'ann@example.net', data: { plan: 'pro', seats: 3, vip: true } })
    contactId = contact.body.id
    await request('POST', '/v1/track', { email: 'ann@example.net', event: 'signed-up', data: { source: 'ad' } })
    await request('PATCH', `/contacts/${contactId}`, { data: { plan: 'team' } })
    const hook = await request('POST', '/webhooks', { url: 'https://hooks.example.net/mailstead', events: ['email.delivered', 'email.bounced'] })
    expect({ status: hook.status, body: hook.body }).toMatchObject({ status: expect.any(Number) })
    expect(hook.status).toBeLessThan(300)
    webhookId = String(hook.body.id)
    const segment = await request('POST', '/segments', {
      name: 'Signed up lately',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'event.signup', operator: 'triggeredWithin', value: 7, unit: 'days' }, { field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
    })
    expect(segment.status).toBe(201)
    segmentId = segment.body.id
    await w.t.app.writer.run((trx) => suppress(trx, project.id, 'complained@example.net', 'complaint', 'feedback loop report', Date.now()))
    for (const [email, subscribed] of [['lena@example.org', true], ['joe@example.org', false]] as const) {
      expect((await request('POST', '/contacts', { email, subscribed, data: { plan: 'pro', country: 'FR' } })).status).toBe(201)
    }
    await w.t.app.deliveries.drain()
    // Reports received over SMTP: a DMARC aggregate, a later bounce and a complaint.
    await feedDmarcReport(w, '192.0.2.25')
    await feedBounce(w, 'bob@example.net')
    await feedComplaint(w, 'ann@example.net')
    await w.t.app.serverChecks.run()
  }, 120_000)
  afterAll(async () => {
    await w?.close()
    await mx?.stop()
    await dns?.stop()
  })

  for (const scheme of ['light', 'dark'] as const) {
    for (const width of ['desktop', 'phone'] as const satisfies Width[]) {
      test(`every page in the ${scheme} scheme at ${width} width: no axe violation, a screenshot`, async () => {
        const page = await w.signedInAt(width, '/console/', 'owner@example.com', { colorScheme: scheme })
        await page.emulateMedia({ reducedMotion: 'reduce' })
        expect(isDark(await background(page))).toBe(scheme === 'dark')
        for (const { path, heading, shot } of pages()) {
          // axeViolations leaves the page in the light scheme: this test's scheme again.
          await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' })
          await page.goto(path)
          await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
          // Let a page's lists and charts arrive (no loading state left) before looking.
          await page.locator('[role="status"].state-loading, .skeleton').first().waitFor({ state: 'detached' })
          await page.waitForLoadState('networkidle')
          // A button pending (the domain's first check) is named by React Aria for its progress: wait it out.
          await page.waitForFunction("!document.querySelector('[data-pending]')")
          await screenshot(page, shot)
          expect({ path, violations: await axeViolations(page) }).toEqual({ path, violations: [] })
          if (width === 'phone') expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
        }
        if (width === 'phone') {
          // The navigation is a drawer over the page; Escape closes it.
          await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' })
          await page.getByRole('button', { name: 'Menu' }).click()
          await page.locator('#sidebar.open').waitFor()
          await screenshot(page, 'theme-drawer')
          await page.keyboard.press('Escape')
          await page.locator('#sidebar.open').waitFor({ state: 'detached' })
        }
        await page.context().close()
        expect(w.problems).toEqual([])
      }, 400_000)
    }
  }

  test('the signed-out pages in both schemes', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of ['desktop', 'phone'] as const) {
        const page = await w.open(width, '/console/sign-in', { colorScheme: scheme })
        await page.getByRole('heading', { name: 'Sign in' }).waitFor()
        await screenshot(page, 'theme-sign-in')
        expect(await axeViolations(page)).toEqual([])
        await page.context().close()
      }
    }
    expect(w.problems).toEqual([])
  }, 90_000)

  test('the theme switch: Dark applies at once, is remembered before the first paint of the next load, and System gives it back', async () => {
    const page = await w.signedInAt('desktop', '/console/domains', 'owner@example.com', { colorScheme: 'light' })
    // The page's colours ease over 200 ms, none with reduced motion: read settled at once.
    await page.emulateMedia({ reducedMotion: 'reduce' })
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor()
    const theme = page.getByRole('radiogroup', { name: 'Theme' })
    expect(await theme.getByRole('radio', { name: 'System' }).isChecked()).toBe(true)
    expect(isDark(await background(page))).toBe(false)

    await theme.getByText('Dark', { exact: true }).click()
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark')
    expect(isDark(await background(page))).toBe(true)
    expect(await page.evaluate("localStorage.getItem('mailstead.theme')")).toBe('dark')
    // The explicit switch, with the system light: axe on the dark palette it picked.
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'theme-switch-dark')

    // A reload: the theme is on <html> before the app's script has run (no light flash).
    await page.route('**/console/assets/index-*.js', (route) => route.abort())
    await page.reload()
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark')
    expect(isDark(await background(page))).toBe(true)
    await page.unroute('**/console/assets/index-*.js')
    await page.reload()
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor()
    expect(await page.getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true)

    // Light, picked, holds while the system says dark.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' })
    await page.getByRole('radiogroup', { name: 'Theme' }).getByText('Light', { exact: true }).click()
    expect(isDark(await background(page))).toBe(false)
    // System again: the dark system scheme shows, and nothing is stored.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' })
    await page.getByRole('radiogroup', { name: 'Theme' }).getByText('System', { exact: true }).click()
    expect(isDark(await background(page))).toBe(true)
    expect(await page.evaluate("localStorage.getItem('mailstead.theme')")).toBe(null)
    expect(await page.evaluate('document.documentElement.dataset.theme ?? null')).toBe(null)
    await page.context().close()
    // The aborted script of the first reload is Chromium's own error line, not the console's.
    expect(w.problems.filter((problem) => !/ERR_FAILED|net::/.test(problem))).toEqual([])
  }, 90_000)
})
