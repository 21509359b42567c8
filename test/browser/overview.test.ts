// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { publishRecords } from '../helpers/domains.ts'
import type { FakeDns } from '../helpers/fake-dns.ts'
import type { FakeMx } from '../helpers/fake-mx.ts'
import { startRecipients } from '../helpers/recipients.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * The Overview on real data: three emails sent through the API to a fake MX, which accepts one,
 * bounces gone@ and defers busy@ every time (so it stays in the queue); one verified domain and one
 * whose records were never published; the server's self-checks run against the fake DNS.
 */

let w: ConsoleWorld
let dns: FakeDns
let mx: FakeMx
let ownerKey: string

/** The numbers of a table row: its cells after the first. */
const numbersOf = async (page: Page, table: string, row: string) =>
  (await page.getByRole('table', { name: table }).getByRole('row').filter({ hasText: row }).getByRole('cell').allTextContents()).slice(1).map(Number)

describeInBrowser('the Overview page in Chromium', () => {
  beforeAll(async () => {
    const recipients = await startRecipients({ onRcpt: (to) => (to.startsWith('gone') ? { code: 550, message: '5.1.1 No such user' } : to.startsWith('busy') ? { code: 451, message: '4.2.1 Try again later' } : undefined) })
    dns = recipients.dns
    mx = recipients.mx
    dns.records('hooks.example.net', { type: 'A', address: '127.0.0.3' })
    w = await startConsoleWorld({
      ...recipients.settings,
      hostname: 'mx.mailstead.test',
      'public-ips': '192.0.2.25',
      'smtp-timeout-seconds': '1',
      'delivery-attempt-timeout-seconds': '5',
      'send-rate-per-second': '10000',
      'webhook-allow-private-targets': 'true',
    })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    ownerKey = project.secretKey
    const request = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: project.secretKey, body })
    const domain = await request('POST', '/api/v1/domains', { name: 'sender.example.com', region: 'us-east-1' })
    publishRecords(dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    const unpublished = await request('POST', '/api/v1/domains', { name: 'unpublished.example.com', region: 'us-east-1' })
    await w.t.app.checker.check(unpublished.body.id)
    for (const to of ['ann@example.net', 'gone@example.net', 'busy@example.net']) {
      expect((await request('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to, subject: 'Hi', html: '<p>Hi</p>' })).status).toBe(200)
    }
    await w.t.app.deliveries.drain()
    await w.t.app.serverChecks.run()
  })
  afterAll(async () => {
    await w?.close()
    await mx?.stop()
    await dns?.stop()
  })

  test('counts from real mail, as a chart and as a table, by hour and by day; the queue, the domains and the checks', async () => {
    const page = await w.signedInAt('desktop', '/console/')
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    const chart = page.getByRole('img', { name: /^Line chart of mail by hour, last 24 hours: sent 3, delivered 1, deferred 1, bounced 1/ })
    await chart.waitFor()
    await chart.locator('canvas').waitFor()
    expect(await page.getByRole('radio', { name: 'Last 24 hours' }).isChecked()).toBe(true)

    await page.getByRole('button', { name: 'Show as table' }).click()
    const hourly = 'Mail by hour, last 24 hours'
    await page.getByRole('table', { name: hourly }).waitFor()
    // A header row, 24 hours and the totals.
    expect(await page.getByRole('table', { name: hourly }).getByRole('row').count()).toBe(26)
    // Sent, delivered, deferred, bounced, complained, opened, clicked.
    expect(await numbersOf(page, hourly, 'Total')).toEqual([3, 1, 1, 1, 0, 0, 0])
    expect(await page.getByRole('button', { name: 'Hide table' }).getAttribute('aria-expanded')).toBe('true')

    const queue = page.getByRole('region', { name: 'Queue' })
    await queue.getByText('1 delivery waiting').waitFor()
    await queue.getByText('Deferred: 1').waitFor()
    const domains = page.getByRole('region', { name: 'Domains' })
    await domains.getByRole('listitem').filter({ hasText: 'sender.example.com' }).getByText('Verified').waitFor()
    const unpublished = domains.getByRole('listitem').filter({ hasText: 'unpublished.example.com' }).first()
    expect(await unpublished.getByText('Verified').count()).toBe(0)
    expect(await domains.getByRole('list', { name: 'Problems of unpublished.example.com' }).getByRole('listitem').count()).toBeGreaterThan(0)
    const checks = page.getByRole('region', { name: 'Reputation checks' })
    // 192.0.2.25 has no PTR record in the fake DNS: a warning to fix.
    await checks.getByRole('list', { name: 'Warnings' }).getByText(/PTR/).first().waitFor()
    await screenshot(page, 'overview')

    // What a person clicks is the label: the radio itself is visually hidden behind it.
    const range = page.getByRole('radiogroup', { name: 'Range' })
    await range.getByText('Last 7 days').click()
    expect(await page.getByRole('radio', { name: 'Last 7 days' }).isChecked()).toBe(true)
    const daily = 'Mail by day, last 7 days'
    await page.getByRole('table', { name: daily }).waitFor()
    expect(await page.getByRole('table', { name: daily }).getByRole('row').count()).toBe(9)
    expect(await numbersOf(page, daily, 'Total')).toEqual([3, 1, 1, 1, 0, 0, 0])
    await page.getByRole('img', { name: /^Line chart of mail by day, last 7 days: sent 3/ }).waitFor()
    await range.getByText('Last 30 days').click()
    await page.getByRole('table', { name: 'Mail by day, last 30 days' }).waitFor()
    expect(await page.getByRole('table', { name: 'Mail by day, last 30 days' }).getByRole('row').count()).toBe(32)
    await screenshot(page, 'overview-30-days')
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('on a phone, and the chart loaded only with the Overview', async () => {
    const page = await w.signedInAt('phone', '/console/api-keys')
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
    const scripts = () => page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name).filter((name) => name.endsWith('.js')))
    expect((await scripts()).some((name) => /LineChart/.test(name))).toBe(false)
    await page.getByRole('button', { name: 'Menu' }).click()
    await page.getByRole('link', { name: 'Overview' }).click()
    await page.getByRole('img', { name: /^Line chart of mail by hour/ }).locator('canvas').waitFor()
    expect((await scripts()).some((name) => /LineChart/.test(name))).toBe(true)
    // The chart fits the phone's width.
    const box = await page.getByRole('img', { name: /^Line chart of mail/ }).boundingBox()
    expect(box!.x + box!.width).toBeLessThanOrEqual(390)
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
    await screenshot(page, 'overview')
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('Get started: each step as the project stands, a test email from the checklist ticks its step, dismissed for good; gone once all are done', async () => {
    // A new project with no domain: its key is made with it; no domain, email or webhook yet.
    const fresh = await makeAccount(w.t, 'fresh@example.com')
    await w.t.app.writer.run((trx) => createOwnedProject(trx, fresh.id, 'Fresh', Date.now()))
    const stepsOf = async (page: Page) => (await page.getByRole('list', { name: 'Steps' }).getByRole('listitem').locator('.step-title').allTextContents())
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of ['desktop', 'phone'] as const) {
        const page = await w.signedInAt(width, '/console/', 'fresh@example.com', { colorScheme: scheme })
        await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' })
        const card = page.getByRole('region', { name: 'Get started' })
        await card.getByText('1 of 4 done.', { exact: false }).waitFor()
        expect(await stepsOf(page)).toEqual(['Verify a sending domain: to do', 'Create an API key: done', 'Send your first email: to do', 'Add a webhook: to do'])
        await card.getByRole('link', { name: 'Add a domain' }).waitFor()
        await card.getByRole('link', { name: 'Add a webhook' }).waitFor()
        if (width === 'phone') expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
        await screenshot(page, 'overview-get-started')
        await page.context().close()
      }
    }
    // Its link goes where the step is done.
    const linked = await w.signedInAt('desktop', '/console/', 'fresh@example.com')
    await linked.getByRole('region', { name: 'Get started' }).getByText('1 of 4 done.', { exact: false }).waitFor()
    expect(await axeViolations(linked)).toEqual([])
    await linked.getByRole('region', { name: 'Get started' }).getByRole('link', { name: 'Add a domain' }).click()
    await linked.getByRole('heading', { name: 'Domains', level: 1 }).waitFor()
    await linked.context().close()

    // A sandbox needs no domain; a test email sent from its step ticks it, with no reload.
    const tester = await makeAccount(w.t, 'sandbox@example.com')
    await w.t.app.writer.run((trx) => createOwnedProject(trx, tester.id, 'Playground', Date.now(), { sandbox: true }))
    const page = await w.signedInAt('desktop', '/console/', 'sandbox@example.com')
    const card = page.getByRole('region', { name: 'Get started' })
    await card.getByText('2 of 4 done.', { exact: false }).waitFor()
    expect(await stepsOf(page)).toEqual(['Sandbox project: no domain needed: done', 'Create an API key: done', 'Send your first email: to do', 'Add a webhook: to do'])
    // The empty chart leaves its button to the card: the page offers it once.
    await page.getByText('No mail in the last 24 hours.').waitFor()
    expect(await page.getByRole('button', { name: 'Send test email' }).count()).toBe(1)
    await card.getByRole('button', { name: 'Send test email' }).click()
    const dialog = page.getByRole('dialog', { name: 'Send a test email' })
    // In a sandbox the sender is any address.
    await expect(dialog.getByLabel('From').inputValue()).resolves.toBe('hello@example.com')
    await dialog.getByLabel('To').fill('ann@example.net')
    await dialog.getByRole('button', { name: 'Send test email' }).click()
    await dialog.waitFor({ state: 'detached' })
    await card.getByText('3 of 4 done.', { exact: false }).waitFor()
    expect(await stepsOf(page)).toContain('Send your first email: done')
    await card.getByText('1 email sent.').waitFor()
    await screenshot(page, 'overview-get-started-sandbox')
    // Dismissed: gone, and still gone after a reload; remembered for this project only.
    await card.getByRole('button', { name: 'Dismiss' }).click()
    await card.waitFor({ state: 'detached' })
    await page.reload()
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await page.getByRole('region', { name: 'Queue' }).waitFor()
    expect(await page.getByRole('region', { name: 'Get started' }).count()).toBe(0)
    expect(await page.evaluate('Object.keys(localStorage).filter((k) => k.startsWith("mailstead.get-started"))')).toHaveLength(1)
    await page.context().close()

    // The shop has its domain verified, its key and its mail: only the webhook is left; once added, the card is gone.
    const shop = await w.signedInAt('desktop', '/console/')
    const shopCard = shop.getByRole('region', { name: 'Get started' })
    await shopCard.getByText('3 of 4 done.', { exact: false }).waitFor()
    expect(await stepsOf(shop)).toEqual(['Verify a sending domain: done', 'Create an API key: done', 'Send your first email: done', 'Add a webhook: to do'])
    await shopCard.getByText('sender.example.com verified.').waitFor()
    const hook = await w.t.request('POST', '/webhooks', { key: ownerKey, body: { url: 'https://hooks.example.net/mailstead', events: ['*'] } })
    expect(hook.status).toBe(201)
    await shop.reload()
    await shop.getByRole('region', { name: 'Queue' }).getByText(/waiting/).waitFor()
    await shop.getByRole('region', { name: 'Domains' }).getByText('sender.example.com').first().waitFor()
    await shop.waitForLoadState('networkidle')
    expect(await shop.getByRole('region', { name: 'Get started' }).count()).toBe(0)
    await shop.context().close()
    expect(w.problems).toEqual([])
  }, 120_000)
})
