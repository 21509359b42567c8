// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Locator } from 'playwright-core'
import { createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { publishRecords } from '../helpers/domains.ts'
import type { FakeDns } from '../helpers/fake-dns.ts'
import type { FakeMx } from '../helpers/fake-mx.ts'
import { startRecipients } from '../helpers/recipients.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'
import { DOMAIN, feedBounce, feedComplaint, feedDmarcReport } from './report-feed.ts'

/*
 * The Reports page over reports the server really received: a DMARC aggregate report, a bounce
 * (DSN) and a complaint (ARF) delivered to its MX listener over SMTP about mail it really sent
 * (through a fake MX). The page is read by what a person reads: the DMARC counts and a source's
 * row, a bounce's row saying what Mailstead did, a column sorted by its header, the kind filter.
 */

const SERVER_IP = '192.0.2.25'
let w: ConsoleWorld
let dns: FakeDns
let mx: FakeMx
let bounced: { emailId: string }

/** The text of a row, its cells joined by spaces. */
const rowText = async (row: Locator) => ((await row.innerText()) ?? '').replace(/\s+/g, ' ')

describeInBrowser('the Reports page in Chromium', () => {
  beforeAll(async () => {
    const recipients = await startRecipients()
    dns = recipients.dns
    mx = recipients.mx
    w = await startConsoleWorld({
      ...recipients.settings,
      hostname: 'mx.mailstead.test',
      'public-ips': SERVER_IP,
      'mx-port': '0',
      'send-rate-per-second': '10000',
    })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    const request = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: project.secretKey, body })
    const domain = await request('POST', '/api/v1/domains', { name: DOMAIN, region: 'us-east-1' })
    publishRecords(dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    for (const to of ['gone@example.net', 'angry@example.net']) {
      const sent = await request('POST', '/api/v1/emails', { from: `Ada <ada@${DOMAIN}>`, to, subject: 'Welcome aboard', html: '<p>Hi</p>' })
      expect(sent.status).toBe(200)
    }
    await w.t.app.deliveries.drain()
    await feedDmarcReport(w, SERVER_IP)
    bounced = await feedBounce(w, 'gone@example.net')
    await feedComplaint(w, 'angry@example.net')

    // Another owner whose project has a domain and no report: the empty states.
    const other = await makeAccount(w.t, 'new@example.com')
    const empty = await w.t.app.writer.run((trx) => createOwnedProject(trx, other.id, 'Fresh', Date.now()))
    await w.t.request('POST', '/api/v1/domains', { key: empty.secretKey, body: { name: 'fresh.example.com', region: 'us-east-1' } })
  }, 120_000)
  afterAll(async () => {
    await w?.close()
    await mx?.stop()
    await dns?.stop()
  })

  test("DMARC: the domain's counts, its reporter and sources; a header click sorts the sources", async () => {
    const page = await w.signedInAt('desktop', '/console/reports')
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor()
    expect(await page.getByRole('tab', { name: 'DMARC' }).getAttribute('aria-selected')).toBe('true')
    const domain = page.getByRole('region', { name: DOMAIN })
    const totals = domain.getByRole('list', { name: `DMARC totals for ${DOMAIN}` }).or(domain.locator(`dl[aria-label="DMARC totals for ${DOMAIN}"]`))
    await totals.waitFor()
    const said = (await totals.innerText()).replace(/\s+/g, ' ')
    expect(said).toContain('Messages 15 3 sources')
    expect(said).toContain('Pass DMARC 12 80 %')
    expect(said).toContain('Fail DMARC 3 20 %')
    expect(said).toContain('Not this server 5 33.3 % · 2 sources')
    expect(await rowText(domain.getByRole('list', { name: `Organisations reporting on ${DOMAIN}` }))).toContain('google.com 1 report, 15 messages')

    const sources = domain.getByRole('table', { name: `Sources sending as ${DOMAIN}` })
    const stranger = sources.getByRole('row', { name: /203\.0\.113\.5/ })
    expect(await rowText(stranger)).toContain('Not this server, fails')
    expect(await rowText(stranger)).toContain('3 quarantined')
    expect(await rowText(sources.getByRole('row', { name: new RegExp(SERVER_IP.replaceAll('.', '\\.')) }))).toContain('This server')

    // Most messages first; a click on Messages turns it round, and aria-sort says so.
    const ips = async () => (await sources.locator('tbody tr td:first-child code').allInnerTexts()).join(' ')
    const messages = sources.getByRole('columnheader', { name: 'Messages' })
    expect(await messages.getAttribute('aria-sort')).toBe('descending')
    expect(await ips()).toBe(`${SERVER_IP} 203.0.113.5 198.51.100.9`)
    await messages.getByRole('button').click()
    await expect(messages.getAttribute('aria-sort')).resolves.toBe('ascending')
    expect(await ips()).toBe(`198.51.100.9 203.0.113.5 ${SERVER_IP}`)
    const source = sources.getByRole('columnheader', { name: 'Source' })
    await source.getByRole('button').click()
    await expect(source.getAttribute('aria-sort')).resolves.toBe('ascending')
    expect(await messages.getAttribute('aria-sort')).toBe(null)
    expect(await ips()).toBe(`192.0.2.25 198.51.100.9 203.0.113.5`)

    // The report is of yesterday: the shortest period still has it.
    await page.getByRole('radiogroup', { name: 'Period' }).getByText('7 days', { exact: true }).click()
    await page.getByText('1 aggregate report in the last 7 days').waitFor()
    await screenshot(page, 'reports-dmarc')
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)

  test('Bounces and complaints: each row says what Mailstead did and links the email; filtered by kind', async () => {
    const page = await w.signedInAt('desktop', '/console/reports')
    await page.getByRole('tab', { name: 'Bounces and complaints' }).click()
    await page.waitForURL('**/console/reports/bounces')
    const table = page.getByRole('table', { name: 'Bounces and complaints received' })
    const bounce = table.getByRole('row', { name: /gone@example\.net/ })
    const text = await rowText(bounce)
    expect(text).toContain('Bounce')
    expect(text).toContain('Hard bounce')
    expect(text).toContain('550 5.1.1 user unknown')
    expect(text).toContain('Suppressed')
    expect(text).toContain('The address was suppressed in this project and its contact unsubscribed (a permanent bounce)')
    expect(await bounce.getByRole('link', { name: 'View email to gone@example.net' }).getAttribute('href')).toBe(`/console/emails/${bounced.emailId}`)
    const complaint = await rowText(table.getByRole('row', { name: /angry@example\.net/ }))
    expect(complaint).toContain('Complaint')
    expect(complaint).toContain('Feedback type abuse, reported by mail.isp.example')

    // Newest first; the Received header sorts the page oldest first.
    const recipients = async () => (await table.locator('tbody tr td:nth-child(3)').allInnerTexts()).join(' ')
    expect(await recipients()).toBe('angry@example.net gone@example.net')
    await table.getByRole('columnheader', { name: 'Received' }).getByRole('button').click()
    await expect(table.getByRole('columnheader', { name: 'Received' }).getAttribute('aria-sort')).resolves.toBe('ascending')
    expect(await recipients()).toBe('gone@example.net angry@example.net')

    // Complaints only: in the address, as a removable chip.
    await page.getByRole('button', { name: 'Filters' }).click()
    await page.getByRole('radiogroup', { name: 'Kind' }).getByText('Complaint', { exact: true }).click()
    await page.keyboard.press('Escape')
    await page.getByRole('list', { name: 'Filters on' }).getByText('Kind: Complaint').waitFor()
    expect(page.url()).toEndWith('/console/reports/bounces?kind=arf')
    await table.getByRole('row', { name: /gone@example\.net/ }).waitFor({ state: 'detached' })
    expect(await recipients()).toBe('angry@example.net')
    await page.getByRole('button', { name: 'Remove filter Kind: Complaint' }).click()
    await table.getByRole('row', { name: /gone@example\.net/ }).waitFor()
    await screenshot(page, 'reports-bounces')
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)

  test('with no report yet: each tab says how reports come, the DMARC one with the record to publish and the docs', async () => {
    const page = await w.signedInAt('phone', '/console/reports', 'new@example.com')
    await page.getByText('No DMARC report in the last 30 days.').waitFor()
    await page.getByRole('figure', { name: 'TXT _dmarc.fresh.example.com' }).getByText('rua=mailto:dmarc@mst.fresh.example.com').waitFor()
    expect(await page.getByRole('link', { name: 'How DMARC reports reach Mailstead' }).getAttribute('href')).toBe('/docs/features/domains')
    await screenshot(page, 'reports-dmarc-empty')
    await page.goto('/console/reports/bounces')
    await page.getByText('No bounce or complaint report received yet.').waitFor()
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)
})
