import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { publishRecords } from '../helpers/domains.ts'
import { FakeDns } from '../helpers/fake-dns.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld, type Width } from './harness.ts'

/*
 * A sandbox project's mail in the console, read as an inbox: the list, and each message rendered,
 * with its headers and the checks a receiver would run. The server delivers to a fake MX (as in
 * emails.test.ts). Until the sandbox flag is on this branch, the page reads `sandbox: true` for
 * the projects named SANDBOXES (markSandboxes); then they are to be made as sandboxes instead.
 */

let w: ConsoleWorld
let dns: FakeDns
let mx: FakeMx
let key: string
let welcome: string
let gone: string
const SANDBOXES = ['Sandbox shop', 'Empty sandbox']

async function send(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${w.url}/api/v1/emails`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ from: 'Shop <shop@sender.example.com>', ...body }) })
  const answer = (await response.json()) as { emailId: string }
  if (response.status !== 200) throw new Error(`send: ${response.status} ${JSON.stringify(answer)}`)
  return answer.emailId
}

async function until(id: string, status: string) {
  for (let i = 0; i < 200; i++) {
    if ((await w.t.request('GET', `/api/v1/emails/${id}`, { key })).body.status === status) return
    await Bun.sleep(50)
  }
  throw new Error(`${id} never became ${status}`)
}

/**
 * The page's fetch, wrapped so that the account's project list marks `names` as sandbox projects
 * (where the server does not say). In the page, not by routing its requests: with page.route,
 * Playwright now and then lost a routed answer when sign-in's navigation cancelled the request
 * ("Object with guid response@… was not bound in the connection"), failing a later step.
 */
const markSandboxes = (names: string[]) => `{
  const names = ${JSON.stringify(names)}
  const fetch = window.fetch.bind(window)
  window.fetch = async (input, init) => {
    const response = await fetch(input, init)
    if (!String(input).endsWith('/api/v1/account/projects') || !response.ok) return response
    const projects = await response.json()
    const marked = projects.map((p) => ({ ...p, sandbox: p.sandbox ?? names.includes(p.name) }))
    return new Response(JSON.stringify(marked), { status: response.status, headers: response.headers })
  }
}`

/** A signed-in page of that width showing `path`, in which the SANDBOXES are sandbox projects. */
async function sandboxPage(width: Width, path: string, email = 'owner@example.com', sandboxes = SANDBOXES): Promise<Page> {
  const page = await w.open(width, '/console/')
  await page.addInitScript({ content: markSandboxes(sandboxes) })
  await page.goto(path)
  await w.signIn(page, email)
  await page.locator('nav[aria-label="Console"]').waitFor({ state: 'attached' })
  return page
}

/**
 * Waits for a heading in the email's frame. Now and then Playwright never attaches to the frame's
 * process (its own origin) though the document loaded (the page's resource timing lists it): the
 * frame is then loaded again, once, as a reader's reload would.
 */
async function framedHeading(page: Page, name: string) {
  const heading = () => page.frameLocator('iframe[title="The email’s HTML"]').getByRole('heading', { name }).waitFor({ timeout: 5_000 })
  await heading().catch(async () => {
    await page.evaluate('document.querySelector("iframe.preview-frame").src += ""')
    await heading()
  })
}

const close = (page: Page) => page.context().close()

const noSideways = async (page: Page) => (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean

describeInBrowser('a sandbox project’s inbox in Chromium', () => {
  beforeAll(async () => {
    dns = await new FakeDns().start()
    mx = await new FakeMx().start('127.0.0.2')
    dns.records('example.net', { type: 'MX', exchange: 'mx.example.net', priority: 10 })
    dns.records('mx.example.net', { type: 'A', address: '127.0.0.2' })
    w = await startConsoleWorld({
      hostname: 'mail.example.test',
      'dns-servers': dns.address,
      'dns-timeout-ms': '300',
      'delivery-port': String(mx.port),
      'delivery-allow-private-targets': 'true',
      'smtp-timeout-seconds': '1',
      'delivery-attempt-timeout-seconds': '5',
      'send-rate-per-second': '10000',
    })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, SANDBOXES[0]!, Date.now()))
    const newcomer = await makeAccount(w.t, 'newcomer@example.com')
    await w.t.app.writer.run((trx) => createOwnedProject(trx, newcomer.id, SANDBOXES[1]!, Date.now()))
    key = project.secretKey
    const domain = await w.t.request('POST', '/api/v1/domains', { key, body: { name: 'sender.example.com', region: 'us-east-1' } })
    publishRecords(dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    welcome = await send({ to: 'jane@example.net', subject: 'Welcome aboard', html: '<h1>Welcome</h1><p>Start at <a href="https://shop.example/start">your dashboard</a>.</p>', text: 'Welcome. Start at https://shop.example/start' })
    gone = await send({ to: 'old@example.net', subject: 'An old receipt', text: 'Thanks for your order.' })
    await until(welcome, 'DELIVERED')
    await until(gone, 'DELIVERED')
    // Retention took this one's message: its headers and checks cannot be read any more.
    await w.t.app.db.deleteFrom('email_contents').where('email_id', '=', gone).execute()
  })

  afterAll(async () => {
    await w?.close()
    await mx?.stop()
    await dns?.stop()
  })

  test('the Emails area reads as an inbox: sender, subject, recipient, time and outcome', async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await sandboxPage(width, '/console/emails')
      await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor()
      const table = page.getByRole('table', { name: 'Inbox' })
      const row = table.getByRole('row').filter({ hasText: 'Welcome aboard' })
      await row.getByText('Delivered').waitFor()
      expect(await table.getByRole('columnheader').allTextContents()).toEqual(['From', 'Subject', 'To', 'Received', 'Outcome'])
      // The sender by name, the whole From on hover.
      await expect(row.getByText('Shop', { exact: true }).getAttribute('title')).resolves.toBe('"Shop" <shop@sender.example.com>')
      expect(await row.textContent()).toContain('jane@example.net')
      expect(await noSideways(page)).toBe(true)
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'inbox')
      await close(page)
    }
    expect(w.problems).toEqual([])
  })

  test('a message shows rendered, then its headers, then the checks a receiver would run', async () => {
    for (const width of ['desktop', 'phone'] as const) {
      const page = await sandboxPage(width, '/console/emails')
      await page.getByRole('link', { name: 'Welcome aboard' }).click()
      await page.getByRole('heading', { name: 'Welcome aboard', level: 1 }).waitFor()
      await expect(page.getByRole('link', { name: '← Inbox' }).isVisible()).resolves.toBe(true)
      const tabs = page.getByRole('tablist', { name: 'The message' })
      await expect(tabs.getByRole('tab', { name: 'Message' }).getAttribute('aria-selected')).resolves.toBe('true')
      await framedHeading(page, 'Welcome')
      // A frame of another origin below the window is painted once scrolled to (as a reader would).
      await page.getByTitle('The email’s HTML').scrollIntoViewIfNeeded()
      await page.evaluate('window.scrollTo(0, 0)')
      await page.getByRole('region', { name: 'Text' }).getByText('Start at https://shop.example/start').waitFor()
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'inbox-message')

      await tabs.getByRole('tab', { name: 'Headers' }).click()
      const headers = page.getByRole('table', { name: 'Message headers' })
      await headers.getByRole('row').filter({ hasText: 'DKIM-Signature' }).first().waitFor()
      expect(await headers.getByRole('row', { name: /^Subject / }).textContent()).toContain('Welcome aboard')
      expect(await headers.getByRole('row', { name: /^Message-ID / }).textContent()).toContain(`<${welcome}@sender.example.com>`)
      expect(await noSideways(page)).toBe(true)
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'inbox-headers')

      await tabs.getByRole('tab', { name: 'Checks' }).click()
      const checks = page.getByRole('list', { name: 'Receiver checks' })
      const dkim = checks.getByRole('listitem').filter({ hasText: 'DKIM signature (d=sender.example.com' }).first()
      await dkim.waitFor()
      expect(await dkim.textContent()).toStartWith('Pass')
      expect(await checks.getByRole('listitem').filter({ hasText: 'From aligned with DKIM' }).textContent()).toStartWith('Pass')
      expect(await checks.getByRole('listitem').filter({ hasText: /^\w+Tracking/ }).textContent()).toStartWith('Pass')
      await page.getByText(/^\d+ passed, \d+ warnings?, \d+ failed$/).waitFor()
      expect(await noSideways(page)).toBe(true)
      expect(await axeViolations(page)).toEqual([])
      await screenshot(page, 'inbox-checks')
      await close(page)
    }
    expect(w.problems).toEqual([])
  })

  test('a project that is not a sandbox keeps its log, and has the same tabs after how the email went', async () => {
    const page = await sandboxPage('desktop', '/console/emails', 'owner@example.com', [])
    await page.getByRole('heading', { name: 'Emails', level: 1 }).waitFor()
    await page.getByRole('table', { name: 'Emails' }).getByRole('link', { name: 'Welcome aboard' }).click()
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
    await page.getByRole('list', { name: 'Receiver checks' }).getByRole('listitem').first().waitFor()
    await close(page)
    expect(w.problems).toEqual([])
  })

  test('loading, error and empty states', async () => {
    const page = await sandboxPage('desktop', `/console/emails/${welcome}`)
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

    const old = await sandboxPage('phone', `/console/emails/${gone}`)
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
      const empty = await sandboxPage(width, '/console/emails', 'newcomer@example.com')
      await empty.getByText('The inbox is empty.').waitFor()
      expect(await axeViolations(empty)).toEqual([])
      await screenshot(empty, 'inbox-empty')
      await close(empty)
    }
    // What the error state asked for: the 410s of the deleted message, which Chromium logs as failed loads.
    expect(w.problems.filter((p) => !p.includes('status of 410'))).toEqual([])
  })
})
