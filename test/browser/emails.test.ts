// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { publishRecords } from '../helpers/domains.ts'
import type { FakeDns } from '../helpers/fake-dns.ts'
import type { FakeMx } from '../helpers/fake-mx.ts'
import { startRecipients } from '../helpers/recipients.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'
import { waitFor } from '../helpers/until.ts'

/*
 * The Emails pages in Chromium, against a server that really delivers: its DNS is a fake one that
 * sends example.net to a fake MX on 127.0.0.2 (a port of its own), as the integration tests' world.
 */

let w: ConsoleWorld
let dns: FakeDns
let mx: FakeMx
let key: string
/** Messages to these recipients get no answer from the fake MX until `release` is called: the test sees them on their way. */
const held = new Set<string>()
let release: () => void = () => {}
let gate: Promise<void> = Promise.resolve()
function hold(recipient: string) {
  held.add(recipient)
  gate = new Promise<void>((resolve) => (release = resolve))
}
/** A web server on 127.0.0.1 that counts what the email's HTML makes a browser ask it for. */
let images: ReturnType<typeof Bun.serve>
const asked: string[] = []
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64')
const FROM = 'Shop <shop@sender.example.com>'

async function send(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${w.url}/api/v1/emails`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ from: FROM, ...body }) })
  const answer = (await response.json()) as { emailId: string }
  if (response.status !== 200) throw new Error(`send: ${response.status} ${JSON.stringify(answer)}`)
  return answer.emailId
}

/** Waits until the email's status is `status` (the server delivers on its own). */
const statusBecomes = (id: string, status: string) =>
  waitFor(async () => (await w.t.request('GET', `/api/v1/emails/${id}`, { key })).body.status === status, `${id} to become ${status}`, 10_000, 50)

/** Nothing on the page is wider than the window. */
const noSideways = async (page: Page) => (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean

describeInBrowser('the Emails pages in Chromium', () => {
  beforeAll(async () => {
    const recipients = await startRecipients({ beforeAnswer: (message) => (message.to.some((to) => held.has(to)) ? gate : undefined) })
    dns = recipients.dns
    mx = recipients.mx
    w = await startConsoleWorld({
      hostname: 'mail.example.test',
      ...recipients.settings,
      // Room for a message held at the fake MX while the page is looked at.
      'smtp-timeout-seconds': '20',
      'delivery-attempt-timeout-seconds': '30',
      'send-rate-per-second': '10000',
    })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    const viewer = await makeAccount(w.t, 'viewer@example.com')
    await w.t.app.writer.run((trx) => addMember(trx, project.id, viewer.id, 'viewer', Date.now()))
    key = project.secretKey
    const domain = await w.t.request('POST', '/api/v1/domains', { key, body: { name: 'sender.example.com', region: 'us-east-1' } })
    publishRecords(dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    images = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        asked.push(new URL(request.url).pathname)
        return new Response(PIXEL, { headers: { 'content-type': 'image/png' } })
      },
    })
  })

  afterAll(async () => {
    await images?.stop(true)
    await w?.close()
    await mx?.stop()
    await dns?.stop()
  })

  test('sending a test email and seeing it DELIVERED in the log with its timeline', async () => {
    const id = await send({ to: 'jane@example.net', subject: 'Welcome aboard', html: '<h1>Welcome</h1><p>Glad to have you.</p>', text: 'Welcome. Glad to have you.' })
    await statusBecomes(id, 'DELIVERED')
    expect(mx.received.some((m) => m.to.includes('jane@example.net'))).toBe(true)

    const page = await w.signedInAt('desktop', '/console/emails')
    const table = page.getByRole('table', { name: 'Emails' })
    const row = table.getByRole('row').filter({ hasText: 'Welcome aboard' })
    await row.getByText('Delivered').waitFor()
    expect(await row.textContent()).toContain('jane@example.net')
    expect(await row.locator('time').getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
    await screenshot(page, 'emails')

    await row.getByRole('link', { name: 'Welcome aboard' }).click()
    await page.getByRole('heading', { name: 'Welcome aboard', level: 1 }).waitFor()
    expect(page.url()).toBe(`${w.url}/console/emails/${id}`)
    // The navigation still marks Emails as where this is.
    await expect(page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Emails', exact: true }).getAttribute('aria-current')).resolves.toBe('page')
    const timeline = page.getByRole('list', { name: 'Events, oldest first' })
    await timeline.getByText('Delivered').waitFor()
    const events = await timeline.getByRole('listitem').allTextContents()
    expect(events[0]).toStartWith('Queued')
    expect(events.at(-1)).toStartWith('Delivered')
    const deliveries = page.getByRole('table', { name: 'Delivery to each recipient' })
    const delivery = deliveries.getByRole('row').filter({ hasText: 'jane@example.net' })
    await delivery.getByText('Delivered').waitFor()
    expect(await delivery.textContent()).toContain('mx.example.net')
    expect(await delivery.textContent()).toContain('sender.example.com')
    await page.getByRole('region', { name: 'Text' }).getByText('Welcome. Glad to have you.').waitFor()
    await page.frameLocator('iframe[title="The email’s HTML"]').getByRole('heading', { name: 'Welcome' }).waitFor()

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download raw message (.eml)' }).click()])
    expect(download.suggestedFilename()).toBe(`${id}.eml`)
    const raw = readFileSync((await download.path())!, 'utf8')
    expect(raw).toStartWith('DKIM-Signature:')
    expect(raw).toContain('Subject: Welcome aboard')
    await screenshot(page, 'email')
    await page.context().close()

    for (const [path, name] of [
      ['/console/emails', 'emails'],
      [`/console/emails/${id}`, 'email'],
    ] as const) {
      const phone = await w.signedInAt('phone', path)
      await phone.getByRole('table').first().getByText('Delivered').first().waitFor()
      if (name === 'email') {
        await phone.frameLocator('iframe[title="The email’s HTML"]').getByRole('heading', { name: 'Welcome' }).waitFor()
      }
      expect(await noSideways(phone)).toBe(true)
      await screenshot(phone, name)
      await phone.context().close()
    }
    expect(w.problems).toEqual([])
  })

  test('a test email sent from the console appears in the log and goes from queued to delivered there, and on its page, with no reload', async () => {
    const page = await w.signedInAt('desktop', '/console/emails')
    await page.getByRole('heading', { name: 'Emails', level: 1 }).waitFor()
    // A mark on the window: a reload would lose it.
    await page.evaluate('window.notReloaded = true')
    await page.getByRole('button', { name: 'Send test email' }).click()
    const dialog = page.getByRole('dialog', { name: 'Send a test email' })
    // To the signed-in person by default, from hello@ a verified domain, with a subject and a body.
    await expect(dialog.getByLabel('To').inputValue()).resolves.toBe('owner@example.com')
    await expect(dialog.getByLabel('From').inputValue()).resolves.toBe('hello')
    await expect(dialog.getByLabel('Domain').inputValue()).resolves.toBe('sender.example.com')
    await expect(dialog.getByLabel('Subject').inputValue()).resolves.toBe('Test email from Mailstead')
    await expect(dialog.getByLabel('Message').inputValue()).resolves.toContain('sent from the Mailstead console')
    await screenshot(page, 'email-send-test')

    // What is wrong is said beside its field, in a sentence: first the form's own check, then the server's.
    await dialog.getByLabel('To').fill('jane')
    await dialog.getByRole('button', { name: 'Send test email' }).click()
    await dialog.getByText('Enter one email address, such as jane@example.com.').waitFor()
    await expect(dialog.getByLabel('To').getAttribute('aria-invalid')).resolves.toBe('true')
    await dialog.getByLabel('To').fill('jane@-bad-.example..net')
    await dialog.getByRole('button', { name: 'Send test email' }).click()
    const serverSaid = dialog.locator('.field-error').filter({ hasText: /\w/ }).first()
    await serverSaid.waitFor()
    expect(await serverSaid.textContent()).toMatch(/^[A-Z].*\.$/)
    expect(await serverSaid.textContent()).not.toMatch(/to\[0\]|Expected/)
    await screenshot(page, 'email-send-test-error')
    expect(await axeViolations(page)).toEqual([])

    // Sent: its answer is held at the fake MX until the log has shown it queued.
    const to = 'console.test@example.net'
    hold(to)
    await dialog.getByLabel('To').fill(to)
    await dialog.getByRole('button', { name: 'Send test email' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByText('Test email sent').waitFor()
    const table = page.getByRole('table', { name: 'Emails' })
    const row = table.getByRole('row').filter({ hasText: to })
    await row.getByText('Queued').waitFor()
    release()
    await row.getByText('Delivered').waitFor({ timeout: 15_000 })
    expect(await page.evaluate('window.notReloaded')).toBe(true)
    const got = mx.received.find((m) => m.to.includes(to))!
    expect(got.from).toContain('sender.example.com')
    expect(got.raw.toString()).toContain('From: hello@sender.example.com')
    expect(got.raw.toString()).toContain('Subject: Test email from Mailstead')

    // A second one, opened while it waits at the MX: its page shows it queued, then delivered, with no reload.
    const second = 'console.again@example.net'
    hold(second)
    await page.getByRole('button', { name: 'Send test email' }).click()
    await dialog.getByLabel('To').fill(second)
    await dialog.getByRole('button', { name: 'Send test email' }).click()
    await dialog.waitFor({ state: 'detached' })
    const secondRow = table.getByRole('row').filter({ hasText: second })
    await secondRow.getByText('Queued').waitFor()
    await secondRow.getByRole('link', { name: 'Test email from Mailstead' }).click()
    await page.getByRole('heading', { name: 'Test email from Mailstead', level: 1 }).waitFor()
    const timeline = page.getByRole('list', { name: 'Events, oldest first' })
    await timeline.getByText('Queued').waitFor()
    expect(await timeline.getByText('Delivered').count()).toBe(0)
    release()
    await timeline.getByText('Delivered').waitFor({ timeout: 15_000 })
    expect(await page.evaluate('window.notReloaded')).toBe(true)

    // The timeline in words: labels a person reads, no raw keys, no ISO times (each time has its UTC instant on hover).
    const delivered = timeline.getByRole('listitem').filter({ hasText: 'Delivered' })
    const labels = await delivered.locator('dt').allTextContents()
    expect(labels).toEqual(expect.arrayContaining(['Recipient', 'Attempt', 'Remote server', 'Response', 'Encryption']))
    for (const label of labels) expect(label).toMatch(/^[A-Z][a-zA-Z -]*$/)
    for (const raw of ['mx', 'smtpCode', 'enhancedCode', 'nextAttemptAt', 'tls', 'mtaSts', 'recipient']) expect(labels).not.toContain(raw)
    const words = String(await timeline.textContent())
    expect(words).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/)
    expect(words).not.toContain('{')
    for (const title of await timeline.locator('time').evaluateAll((times) => times.map((t) => (t as unknown as { title: string }).title))) expect(title).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
    await screenshot(page, 'email-timeline')
    expect(await axeViolations(page)).toEqual([])
    await page.context().close()

    // On a phone, the dialog fits; in the dark theme too.
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of ['desktop', 'phone'] as const) {
        const other = await w.signedInAt(width, '/console/emails', 'owner@example.com', { colorScheme: scheme })
        await other.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' })
        await other.getByRole('table', { name: 'Emails' }).waitFor()
        await other.getByRole('button', { name: 'Send test email' }).click()
        await other.getByRole('dialog', { name: 'Send a test email' }).getByLabel('Subject').waitFor()
        expect(await noSideways(other)).toBe(true)
        await screenshot(other, 'email-send-test')
        await other.keyboard.press('Escape')
        const link = other.getByRole('link', { name: 'Test email from Mailstead' }).first()
        await link.click()
        await other.getByRole('list', { name: 'Events, oldest first' }).getByText('Delivered').waitFor()
        expect(await noSideways(other)).toBe(true)
        await screenshot(other, 'email-timeline')
        await other.context().close()
      }
    }

    // A viewer may not send: no button.
    const viewer = await w.signedInAt('desktop', '/console/emails', 'viewer@example.com')
    await viewer.getByRole('table', { name: 'Emails' }).waitFor()
    expect(await viewer.getByRole('button', { name: 'Send test email' }).count()).toBe(0)
    await viewer.context().close()
    expect(w.problems).toEqual([])
  }, 90_000)

  test('an HTML email runs no script, submits no form and loads its remote image only when asked; a long subject keeps the table in bounds', async () => {
    const base = `http://127.0.0.1:${images.port}`
    const subject = `Your order confirmation and everything else we wanted to tell you about it, ${'very '.repeat(20)}long — ref ${'X'.repeat(120)}`
    const html = [
      '<!DOCTYPE html><html><body>',
      '<p id="said">Nothing ran</p>',
      `<script>fetch('${base}/script'); document.getElementById('said').textContent = 'A script ran'</script>`,
      `<form action="${base}/form" method="get"><input name="q" value="1"><button type="submit">Submit the form</button></form>`,
      `<img src="${base}/pixel.png" alt="Remote pixel" width="20" height="20">`,
      '</body></html>',
    ].join('')
    const to = ['first', 'second', 'third', 'fourth', 'fifth'].map((n) => `${n}.recipient.with.a.long.name@example.net`)
    const id = await send({ to, subject, html, text: 'Plain' })
    await statusBecomes(id, 'DELIVERED')

    for (const width of ['desktop', 'phone'] as const) {
      const list = await w.signedInAt(width, '/console/emails')
      const link = list.getByRole('link', { name: subject })
      await link.waitFor()
      // Cut to its cell, the whole of it on hover.
      expect(await link.getAttribute('title')).toBe(subject)
      const box = (await link.boundingBox())!
      expect(box.width).toBeLessThan(width === 'desktop' ? 400 : 390)
      expect(await noSideways(list)).toBe(true)
      await screenshot(list, 'emails-long-subject')
      await list.context().close()
    }

    const page = await w.signedInAt('desktop', `/console/emails/${id}`)
    const frame = page.frameLocator('iframe[title="The email’s HTML"]')
    await frame.getByText('Nothing ran').waitFor()
    await frame.getByRole('button', { name: 'Submit the form' }).click()
    await Bun.sleep(300) // a submission would be asked for within milliseconds; none may come
    await frame.getByText('Nothing ran').waitFor()
    expect(asked).toEqual([])
    // The document is in an origin of its own, not the console's.
    const framed = page.frames().find((f) => f.url().includes('/preview'))!
    expect(await framed.evaluate('window.origin')).toBe('null')
    await screenshot(page, 'email-html')

    await page.getByRole('button', { name: 'Load remote images' }).click()
    await page.getByText('Remote images are shown.').waitFor()
    await page.frameLocator('iframe[title="The email’s HTML"]').getByRole('img', { name: 'Remote pixel' }).waitFor()
    await waitFor(() => asked.includes('/pixel.png'), 'the remote pixel to be asked for')
    expect(asked).toEqual(['/pixel.png'])
    await page.frameLocator('iframe[title="The email’s HTML"]').getByText('Nothing ran').waitFor()
    expect(await noSideways(page)).toBe(true)
    await page.context().close()

    // What the sandbox refused, Chromium logs as errors: the image (before it was asked for), the script and the form.
    const refused = w.problems.filter((problem) => problem.includes(base) || /sandboxed|allow-scripts|allow-forms/.test(problem))
    expect(refused.some((p) => p.includes(`${base}/pixel.png`) && p.includes('img-src'))).toBe(true)
    expect(w.problems.filter((problem) => !refused.includes(problem))).toEqual([])
    w.problems.length = 0
    expect(w.problems).toEqual([])
  })

  test('filters narrow the list, live in the address and survive a reload', async () => {
    await send({ to: 'alpha@example.net', subject: 'For alpha', text: 'a' })
    await send({ to: 'beta@example.net', subject: 'For beta', text: 'b' })
    await send({ to: 'later@example.net', subject: 'Sent tomorrow', text: 'c', scheduledAt: new Date(Date.now() + 86_400_000).toISOString() })

    const page = await w.signedInAt('desktop', '/console/emails')
    const table = page.getByRole('table', { name: 'Emails' })
    await table.getByText('For beta').waitFor()
    // The filters are folded behind one button until one is on.
    expect(await page.getByLabel('Recipient').isVisible()).toBe(false)
    await page.getByText('Filters', { exact: true }).click()
    await page.getByLabel('Recipient').fill('ALPHA@')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    const filtered = page.getByRole('table', { name: 'Emails matching the filters' })
    await filtered.getByText('For alpha').waitFor()
    expect(await filtered.getByRole('row').count()).toBe(2)
    expect(new URL(page.url()).search).toBe('?recipient=ALPHA%40')

    await page.reload()
    await filtered.getByText('For alpha').waitFor()
    expect(await filtered.getByRole('row').count()).toBe(2)
    await expect(page.getByLabel('Recipient').inputValue()).resolves.toBe('ALPHA@')

    await page.getByLabel('Recipient').fill('')
    await page.getByLabel('Status').selectOption({ label: 'Scheduled' })
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await filtered.getByText('Sent tomorrow').waitFor()
    expect(await filtered.getByRole('row').count()).toBe(2)
    expect(new URL(page.url()).search).toBe('?status=SCHEDULED')

    // Back is the filter before; a range ending before it starts is named beside its field.
    await page.goBack()
    await filtered.getByText('For alpha').waitFor()
    await page.getByLabel('Sent from (day)').fill('2030-01-02')
    await page.getByLabel('Sent until (day)').fill('2030-01-01')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByText('must not be before the first day').waitFor()
    await expect(page.getByLabel('Sent until (day)').getAttribute('aria-invalid')).resolves.toBe('true')

    await page.getByRole('button', { name: 'Clear filters' }).click()
    await table.getByText('For beta').waitFor()
    expect(new URL(page.url()).search).toBe('')
    await page.context().close()

    const empty = await w.signedInAt('phone', '/console/emails?status=BOUNCED&sender=nobody')
    await empty.getByText('No email matches these filters.').waitFor()
    await expect(empty.getByLabel('Sender').inputValue()).resolves.toBe('nobody')
    await screenshot(empty, 'emails-filtered-empty')
    await empty.context().close()
    expect(w.problems).toEqual([])
  })

  test('a scheduled email is rescheduled, then cancelled, from its page', async () => {
    const id = await send({ to: 'someday@example.net', subject: 'Maybe later', text: 'later', scheduledAt: new Date(Date.now() + 86_400_000).toISOString() })
    const page = await w.signedInAt('desktop', `/console/emails/${id}`)
    await page.getByRole('heading', { name: 'Maybe later', level: 1 }).waitFor()
    const scheduled = page.getByRole('region', { name: 'Scheduled' })
    await scheduled.getByLabel('Send at (your time)').fill('2030-01-02T03:04')
    await scheduled.getByRole('button', { name: 'Reschedule' }).click()
    const timeline = page.getByRole('list', { name: 'Events, oldest first' })
    await timeline.getByText('Scheduled').nth(1).waitFor()
    expect((await w.t.request('GET', `/api/v1/emails/${id}`, { key })).body.scheduledAt).toBe(new Date(2030, 0, 2, 3, 4).toISOString())
    await screenshot(page, 'email-scheduled')

    await scheduled.getByRole('button', { name: 'Cancel this email' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Cancel this email?' })
    await dialog.getByRole('button', { name: 'Cancel the email' }).click()
    await dialog.waitFor({ state: 'detached' })
    await timeline.getByText('Cancelled').waitFor()
    await scheduled.waitFor({ state: 'detached' })
    expect((await w.t.request('GET', `/api/v1/emails/${id}`, { key })).body.status).toBe('CANCELLED')
    await page.context().close()
    expect(w.problems).toEqual([])
  })
})
