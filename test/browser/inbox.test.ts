// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount, signIn } from '../helpers/accounts.ts'
import { publishRecords } from '../helpers/domains.ts'
import type { FakeDns } from '../helpers/fake-dns.ts'
import type { FakeMx } from '../helpers/fake-mx.ts'
import { startRecipients } from '../helpers/recipients.ts'
import { waitFor } from '../helpers/until.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld, type Width } from './harness.ts'

/*
 * A sandbox project's mail in the console, read as an inbox: the list, and each message rendered,
 * with its headers and the checks a receiver would run. The sandbox projects are real ones (made
 * as sandboxes, or switched to one by PATCH /api/v1/project): they send from a domain no DNS
 * knows, and their mail never leaves the server. A project that is not a sandbox, with a verified
 * domain, delivers to a fake MX (as in emails.test.ts), which the sandbox's mail must never reach.
 */

let w: ConsoleWorld
let dns: FakeDns
let mx: FakeMx
/** The sandbox project's key (owner@example.com's project). */
let key: string
/** The real project's key (shipper@example.com's project). */
let realKey: string
let welcome: string
let returned: string
let gone: string
let shipped: string
/** The sandbox's sender: a domain that no DNS publishes and no project verified. */
const SANDBOX_FROM = 'Shop <shop@shop.example>'

async function send(apiKey: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${w.url}/api/v1/emails`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const answer = (await response.json()) as { emailId: string }
  if (response.status !== 200) throw new Error(`send: ${response.status} ${JSON.stringify(answer)}`)
  return answer.emailId
}

const statusBecomes = (apiKey: string, id: string, status: string) =>
  waitFor(async () => (await w.t.request('GET', `/api/v1/emails/${id}`, { key: apiKey })).body.status === status, `${id} to become ${status}`, 10_000, 50)

/** A signed-in page of that width showing `path`. */
async function signedInPage(width: Width, path: string, email = 'owner@example.com'): Promise<Page> {
  const page = await w.open(width, path)
  await w.signIn(page, email)
  await page.locator('nav[aria-label="Console"]').waitFor({ state: 'attached' })
  return page
}

/** Waits for a heading in the email's frame. */
const framedHeading = (page: Page, name: string) => page.frameLocator('iframe[title="The email’s HTML"]').getByRole('heading', { name }).waitFor()

const close = (page: Page) => page.context().close()

const noSideways = async (page: Page) => (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean

describeInBrowser('a sandbox project’s inbox in Chromium', () => {
  beforeAll(async () => {
    // The recipients' domain has an MX, the fake one: were sandbox mail to leave, it would land there.
    const recipients = await startRecipients()
    dns = recipients.dns
    mx = recipients.mx
    w = await startConsoleWorld({
      hostname: 'mail.example.test',
      ...recipients.settings,
      'smtp-timeout-seconds': '1',
      'delivery-attempt-timeout-seconds': '5',
      'send-rate-per-second': '10000',
    })
    // A sandbox as made, and a project its owner switched to one through the project API, with no mail yet.
    const owner = await makeAccount(w.t, 'owner@example.com')
    key = (await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Sandbox shop', Date.now(), { sandbox: true }))).secretKey
    const newcomer = await makeAccount(w.t, 'newcomer@example.com')
    const empty = await w.t.app.writer.run((trx) => createOwnedProject(trx, newcomer.id, 'Empty sandbox', Date.now()))
    const person = await signIn(w.t, 'newcomer@example.com')
    const switched = await w.t.request('PATCH', '/api/v1/project', { headers: person.headers({ project: empty.id }), body: { sandbox: true } })
    expect(switched.status).toBe(200)
    expect(switched.body.sandbox).toBe(true)
    // A real project, with a verified domain, whose mail goes to the fake MX.
    const shipper = await makeAccount(w.t, 'shipper@example.com')
    realKey = (await w.t.app.writer.run((trx) => createOwnedProject(trx, shipper.id, 'Real shop', Date.now()))).secretKey
    const domain = await w.t.request('POST', '/api/v1/domains', { key: realKey, body: { name: 'sender.example.com', region: 'us-east-1' } })
    publishRecords(dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)

    const queriesBefore = dns.queries.length
    welcome = await send(key, {
      from: SANDBOX_FROM,
      to: 'jane@example.net',
      subject: 'Welcome aboard',
      html: '<h1>Welcome</h1><p>Start at <a href="https://shop.example/start">your dashboard</a>.</p>',
      text: 'Welcome. Start at https://shop.example/start',
    })
    returned = await send(key, { from: SANDBOX_FROM, to: 'bounce@example.net', subject: 'Your parcel is on its way', text: 'It left the warehouse.' })
    gone = await send(key, { from: SANDBOX_FROM, to: 'old@example.net', subject: 'An old receipt', text: 'Thanks for your order.' })
    await statusBecomes(key, welcome, 'DELIVERED')
    await statusBecomes(key, returned, 'BOUNCED')
    await statusBecomes(key, gone, 'DELIVERED')
    // The sandbox asked DNS nothing: no MX of its recipients, no key of its sender.
    expect(dns.queries.slice(queriesBefore)).toEqual([])
    // Retention took this one's message: its headers and checks cannot be read any more.
    await w.t.app.db.deleteFrom('email_contents').where('email_id', '=', gone).execute()

    shipped = await send(realKey, { from: 'Shop <shop@sender.example.com>', to: 'jane@example.net', subject: 'Your order shipped', html: '<p>It is on its way.</p>', text: 'It is on its way.' })
    await statusBecomes(realKey, shipped, 'DELIVERED')
  })

  afterAll(async () => {
    await w?.close()
    await mx?.stop()
    await dns?.stop()
  })

  test('the sandbox’s mail never left the server: the MX received the real project’s email alone', () => {
    expect(mx.received.map((m) => m.to)).toEqual([['jane@example.net']])
    expect(mx.received[0]!.raw.toString()).toContain('Subject: Your order shipped')
    expect(mx.received.some((m) => m.raw.toString().includes('shop.example>'))).toBe(false)
  })

  test('the Emails area reads as an inbox: sender, subject, recipient, time and outcome', async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await signedInPage(width, '/console/emails')
      await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor()
      const table = page.getByRole('table', { name: 'Inbox' })
      const row = table.getByRole('row').filter({ hasText: 'Welcome aboard' })
      await row.getByText('Delivered').waitFor()
      expect(await table.getByRole('columnheader').allTextContents()).toEqual(['From', 'Subject', 'To', 'Received', 'Outcome'])
      // The sender by name, the whole From on hover.
      await expect(row.getByText('Shop', { exact: true }).getAttribute('title')).resolves.toBe('"Shop" <shop@shop.example>')
      expect(await row.textContent()).toContain('jane@example.net')
      // The simulator's answer to bounce@: the hard bounce, in the Outcome column.
      const bounced = table.getByRole('row').filter({ hasText: 'Your parcel is on its way' })
      expect(await bounced.textContent()).toContain('bounce@example.net')
      expect(await bounced.getByRole('cell').last().textContent()).toBe('Bounced')
      // The filters folded under one line: the messages come first.
      expect(await page.getByLabel('Status', { exact: true }).isVisible()).toBe(false)
      expect(await noSideways(page)).toBe(true)
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'inbox')
      await close(page)
    }
    expect(w.problems).toEqual([])
  })

  test('the inbox’s filters open, and stay open while one is on', async () => {
    const page = await signedInPage('phone', '/console/emails')
    await page.getByRole('table', { name: 'Inbox' }).getByRole('link', { name: 'Welcome aboard' }).waitFor()
    await page.getByText('Filters', { exact: true }).click()
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Bounced' })
    await page.getByRole('button', { name: 'Apply filters' }).click()
    const table = page.getByRole('table', { name: 'Inbox matching the filters' })
    await table.getByRole('link', { name: 'Your parcel is on its way' }).waitFor()
    expect(await table.getByRole('link').allTextContents()).toEqual(['Your parcel is on its way'])
    expect(await page.getByLabel('Status', { exact: true }).isVisible()).toBe(true)
    await expect(page.getByRole('button', { name: 'Clear filters' }).isVisible()).resolves.toBe(true)
    expect(await axeViolations(page)).toEqual([])
    await close(page)
    expect(w.problems).toEqual([])
  })

  test('a message shows rendered, then its headers, then the checks a receiver would run', async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await signedInPage(width, '/console/emails')
      await page.getByRole('link', { name: 'Welcome aboard' }).click()
      await page.getByRole('heading', { name: 'Welcome aboard', level: 1 }).waitFor()
      await expect(page.getByRole('link', { name: '← Inbox' }).isVisible()).resolves.toBe(true)
      const tabs = page.getByRole('tablist', { name: 'The message' })
      await expect(tabs.getByRole('tab', { name: 'Message' }).getAttribute('aria-selected')).resolves.toBe('true')
      await framedHeading(page, 'Welcome')
      await page.getByRole('region', { name: 'Text' }).getByText('Start at https://shop.example/start').waitFor()
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'inbox-message')

      await tabs.getByRole('tab', { name: 'Headers' }).click()
      const headers = page.getByRole('table', { name: 'Message headers' })
      const signature = headers.getByRole('row').filter({ hasText: 'DKIM-Signature' }).first()
      await signature.waitFor()
      expect(await signature.textContent()).toContain('s=sandbox')
      expect(await headers.getByRole('row', { name: /^Subject / }).textContent()).toContain('Welcome aboard')
      expect(await headers.getByRole('row', { name: /^Message-ID / }).textContent()).toContain(`<${welcome}@`)
      expect(await noSideways(page)).toBe(true)
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'inbox-headers')

      await tabs.getByRole('tab', { name: 'Checks' }).click()
      const checks = page.getByRole('list', { name: 'Receiver checks' })
      await checks.getByRole('listitem').first().waitFor()
      expect(await checks.getByRole('listitem').filter({ hasText: /^\w+Tracking/ }).textContent()).toStartWith('Pass')
      await page.getByText(/^\d+ passed, \d+ warnings?, \d+ failed$/).waitFor()
      expect(await noSideways(page)).toBe(true)
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'inbox-checks')
      await close(page)
    }
    expect(w.problems).toEqual([])
  })

  test('a sandbox email’s DKIM passes with the project’s sandbox key, which no DNS publishes', async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await signedInPage(width, `/console/emails/${welcome}`)
      await page.getByRole('heading', { name: 'Welcome aboard', level: 1 }).waitFor()
      await page.getByRole('tablist', { name: 'The message' }).getByRole('tab', { name: 'Checks' }).click()
      const checks = page.getByRole('list', { name: 'Receiver checks' })
      const dkim = checks.getByRole('listitem').filter({ hasText: 'DKIM signature (d=shop.example s=sandbox)' })
      await dkim.waitFor()
      expect(await dkim.textContent()).toBe(
        'PassDKIM signature (d=shop.example s=sandbox)Passes with the project\'s sandbox key (sandbox._domainkey.shop.example): sandbox mail never reaches a receiver, so no DNS publishes it',
      )
      expect(await checks.getByRole('listitem').filter({ hasText: 'From aligned with DKIM' }).textContent()).toStartWith('Pass')
      // No check of the sender's domain failed: a sandbox sends from any address.
      expect(await page.getByText(/^\d+ passed, \d+ warnings?, 0 failed$/).isVisible()).toBe(true)
      expect(await noSideways(page)).toBe(true)
      await close(page)
    }
    expect(w.problems).toEqual([])
  })

  test('a project that is not a sandbox keeps its log, and has the same tabs after how the email went', async () => {
    const page = await signedInPage('desktop', '/console/emails', 'shipper@example.com')
    await page.getByRole('heading', { name: 'Emails', level: 1 }).waitFor()
    await page.getByRole('table', { name: 'Emails' }).getByRole('link', { name: 'Your order shipped' }).click()
    await page.getByRole('link', { name: '← All emails' }).waitFor()
    const tabs = page.getByRole('tablist', { name: 'The message' })
    await tabs.waitFor()
    const below = (await page.evaluate(`(() => {
      const deliveries = [...document.querySelectorAll('caption')].find((c) => c.textContent === 'Delivery to each recipient')
      const tabs = document.querySelector('[role=tablist]')
      return Boolean(deliveries.compareDocumentPosition(tabs) & Node.DOCUMENT_POSITION_FOLLOWING)
    })()`)) as boolean
    expect(below).toBe(true)
    await tabs.getByRole('tab', { name: 'Checks' }).click()
    // Signed with the domain's own keys (RSA and Ed25519), which its DNS publishes: no sandbox key.
    const checks = page.getByRole('list', { name: 'Receiver checks' })
    const dkim = checks.getByRole('listitem').filter({ hasText: 'DKIM signature (d=sender.example.com' })
    await dkim.first().waitFor()
    const signatures = await dkim.allTextContents()
    expect(signatures).toHaveLength(2)
    for (const signature of signatures) expect(signature).toMatch(/^PassDKIM signature \(d=sender\.example\.com s=\S+\)Passes with the key \S+ publishes$/)
    expect(await checks.getByText(/sandbox/).count()).toBe(0)
    await close(page)
    expect(w.problems).toEqual([])
  })

  test('loading, error and empty states', async () => {
    const page = await signedInPage('desktop', `/console/emails/${welcome}`)
    await page.getByRole('heading', { name: 'Welcome aboard', level: 1 }).waitFor()
    // The checks held back until the loading state is seen.
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route('**/checks', async (route) => {
      await held
      await route.continue()
    })
    await page.getByRole('tab', { name: 'Checks' }).click()
    await page.getByRole('status').getByText('Running the checks…').waitFor()
    await screenshot(page, 'inbox-checks-loading')
    release()
    await page.getByRole('list', { name: 'Receiver checks' }).waitFor()
    await close(page)

    const old = await signedInPage('phone', `/console/emails/${gone}`)
    await old.getByRole('heading', { name: 'An old receipt', level: 1 }).waitFor()
    await old.getByRole('tab', { name: 'Headers' }).click()
    await old.getByRole('alert').getByText(/deleted by retention/).waitFor()
    await old.getByRole('tab', { name: 'Checks' }).click()
    await old.getByRole('alert').getByText(/deleted by retention/).waitFor()
    await expect(old.getByRole('button', { name: 'Try again' }).isVisible()).resolves.toBe(true)
    expect(await axeViolations(old)).toEqual([])
    await screenshot(old, 'inbox-checks-error')
    await close(old)

    for (const width of ['desktop', 'phone'] as const) {
      const empty = await signedInPage(width, '/console/emails', 'newcomer@example.com')
      await empty.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor()
      await empty.getByText('The inbox is empty.').waitFor()
      await empty.getByText(/^Send one from any address \(no domain needed\) with POST/).waitFor()
      expect(await axeViolations(empty)).toEqual([])
      await screenshot(empty, 'inbox-empty')
      await close(empty)
    }
    // What the error state asked for: the 410s of the deleted message, which Chromium logs as failed loads.
    expect(w.problems.filter((p) => !p.includes('status of 410'))).toEqual([])
  })
})
