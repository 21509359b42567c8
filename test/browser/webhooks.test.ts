// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { EVENT_TYPES as SERVER_EVENT_TYPES } from '../../src/core/webhooks/event-types.ts'
import { verifySignature } from '../../src/lib/outbound/signature.ts'
import { EVENT_TYPES as CONSOLE_EVENT_TYPES } from '../../src/console/lib/webhooks-view.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { until } from '../helpers/webhooks.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

let w: ConsoleWorld
let project: { id: number; secretKey: string }

interface Call {
  path: string
  headers: Headers
  body: string
}

/** The endpoint the webhook calls, on 127.0.0.1 (the test server allows private targets): it answers 200 with JSON, or 500 while `failing`. */
function startReceiver() {
  const calls: Call[] = []
  const state = { failing: false }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      calls.push({ path: new URL(request.url).pathname, headers: request.headers, body: await request.text() })
      if (state.failing) return new Response(`receiver down for maintenance: ${'x'.repeat(300)}`, { status: 500 })
      return Response.json({ received: true, note: 'stored' })
    },
  })
  return { base: `http://127.0.0.1:${server.port}`, calls, state, stop: () => server.stop(true) }
}

let receiver: ReturnType<typeof startReceiver>

/** Ticks or unticks a box by its label, as a person clicks it (React Aria's input is visually hidden under the label). */
async function tick(page: Page, name: string, on: boolean) {
  const events = page.getByRole('group', { name: 'Events', exact: true })
  const box = events.getByRole('checkbox', { name, exact: true })
  if ((await box.isChecked()) === on) return
  await events.getByText(name, { exact: true }).click()
  await expect(box.isChecked()).resolves.toBe(on)
}

const addContact = (email: string) =>
  fetch(`${w.url}/contacts`, { method: 'POST', headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ email }) })

describeInBrowser('the Webhooks page in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld({ 'webhook-allow-private-targets': 'true' })
    receiver = startReceiver()
    const owner = await makeAccount(w.t, 'owner@example.com')
    const viewer = await makeAccount(w.t, 'viewer@example.com')
    const member = await makeAccount(w.t, 'member@example.com')
    project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, project.id, viewer.id, 'viewer', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, project.id, member.id, 'member', Date.now()))
  })
  afterAll(async () => {
    await w?.close()
    receiver?.stop()
  })

  test('the console offers the event types the server knows', () => {
    expect([...CONSOLE_EVENT_TYPES].sort()).toEqual([...SERVER_EVENT_TYPES].sort())
  })

  test('a webhook with its delivery log: added (errors beside the fields first), an event delivered, the receiver failing on a replay, the secret rotated, then deleted', async () => {
    const page = await w.signedInAt('desktop', '/console/webhooks')
    await page.getByText('No webhook yet.').waitFor()
    await screenshot(page, 'webhooks-empty')
    await page.getByRole('button', { name: 'Add an endpoint' }).click()

    // A URL that is none, then no event: each refusal is shown beside its field.
    const url = page.getByLabel('Endpoint URL')
    await url.fill('not a url')
    await tick(page, 'contact.created', true)
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await page.locator('.field-error').filter({ hasText: /./ }).first().waitFor()
    await expect(url.getAttribute('aria-invalid')).resolves.toBe('true')
    const longPath = `/hooks/mailstead/${'a-rather-long-segment-'.repeat(6)}end?token=${'t'.repeat(60)}`
    await url.fill(`${receiver.base}${longPath}`)
    await tick(page, 'contact.created', false)
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const events = page.getByRole('group', { name: 'Events' })
    await events.getByText('give at least one event type').waitFor()
    await expect(url.getAttribute('aria-invalid')).resolves.not.toBe('true')
    await screenshot(page, 'webhooks-errors')

    // Ticking "all" leaves nothing else to tick; unticked, two types are taken.
    await tick(page, 'All events, those added later too', true)
    await expect(page.getByRole('checkbox', { name: 'email.sent' }).isDisabled()).resolves.toBe(true)
    await tick(page, 'All events, those added later too', false)
    await tick(page, 'contact.created', true)
    await tick(page, 'email.bounced', true)
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    await page.getByRole('heading', { name: 'Webhook added' }).waitFor()
    const secret = String(await page.getByLabel('Signing secret', { exact: true }).textContent())
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    await page.getByRole('button', { name: 'Copy signing secret' }).waitFor()
    const table = page.getByRole('table', { name: 'Endpoints' })
    await table.getByText('email.bounced and 1 more').waitFor()
    await screenshot(page, 'webhooks-added')

    // An event: a contact added through the API with the project's key reaches the receiver, signed.
    expect((await addContact('ada@example.org')).status).toBe(201)
    await until(() => receiver.calls.length === 1, 'the first call')
    const first = receiver.calls[0]!
    expect(first.path).toBe(longPath.split('?')[0]!)
    expect(verifySignature(secret, first.headers, first.body, Date.now())).toBe(true)

    await page.getByRole('link', { name: 'Open its delivery log' }).click()
    await page.getByRole('heading', { name: 'Webhook', level: 1 }).waitFor()
    const log = page.getByRole('list', { name: 'Deliveries' })
    const card = log.getByRole('listitem').first()
    await card.getByText('Delivered').waitFor()
    await card.getByText(/^HTTP 200 in \d+ ms$/).first().waitFor()
    await card.getByText('Request and response').click()
    const request = card.getByRole('region', { name: 'Request' })
    const response = card.getByRole('region', { name: 'Response' })
    await expect(request.locator('pre').textContent()).resolves.toContain('"email": "ada@example.org"')
    await expect(request.textContent()).resolves.toContain(`POST ${receiver.base}${longPath}`)
    await expect(response.locator('pre').textContent()).resolves.toBe('{\n  "received": true,\n  "note": "stored"\n}')
    await screenshot(page, 'webhook-detail')

    // The receiver fails; the delivery replayed is called again with the same event id, and the log shows the new answer.
    receiver.state.failing = true
    await card.getByRole('button', { name: /^Replay contact\.created event / }).click()
    await card.getByText('Retrying').waitFor()
    await card.getByText(/^HTTP 500 in \d+ ms$/).first().waitFor()
    await expect(response.locator('pre').textContent()).resolves.toStartWith('receiver down for maintenance')
    expect(receiver.calls).toHaveLength(2)
    expect(receiver.calls[1]!.headers.get('x-mailstead-id')).toBe(first.headers.get('x-mailstead-id'))
    await expect(card.getByRole('button', { name: /^Replay/ }).count()).resolves.toBe(0)
    await screenshot(page, 'webhook-replayed')

    // Rotate the secret, the old one ending now: the new one is shown once and signs the next call alone.
    await page.getByRole('button', { name: 'Rotate secret' }).click()
    const rotate = page.getByRole('alertdialog', { name: 'Rotate the signing secret?' })
    await rotate.getByText('Stops signing now').click()
    await expect(rotate.getByRole('radio', { name: 'Stops signing now' }).isChecked()).resolves.toBe(true)
    await screenshot(page, 'webhook-rotate')
    await rotate.getByRole('button', { name: 'Rotate secret' }).click()
    await page.getByRole('heading', { name: 'New signing secret' }).waitFor()
    await page.getByText('The old secret signs nothing more.').waitFor()
    const rotated = String(await page.getByLabel('Signing secret', { exact: true }).textContent())
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(rotated).not.toBe(secret)
    await page.getByRole('button', { name: 'Done' }).click()
    receiver.state.failing = false
    expect((await addContact('grace@example.org')).status).toBe(201)
    await until(() => receiver.calls.some((c) => c.body.includes('grace@example.org')), 'the call after rotating')
    const after = receiver.calls.find((c) => c.body.includes('grace@example.org'))!
    expect(verifySignature(rotated, after.headers, after.body, Date.now())).toBe(true)
    expect(verifySignature(secret, after.headers, after.body, Date.now())).toBe(false)
    await page.getByRole('button', { name: 'Refresh the delivery log' }).click()
    await log.getByRole('listitem').filter({ hasText: 'Delivered' }).first().waitFor()

    // Change its events, disable it (no replay then), enable it again.
    await page.getByRole('button', { name: 'Edit', exact: true }).click()
    await tick(page, 'email.bounced', false)
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.getByRole('status').filter({ hasText: 'Changes saved.' }).waitFor()
    await expect(page.getByRole('region', { name: 'Endpoint' }).getByRole('list').textContent()).resolves.toBe('contact.created')
    await page.getByRole('button', { name: 'Disable' }).click()
    await page.getByText('Disabled: its events wait').waitFor()
    await expect(page.getByRole('button', { name: /^Replay/ }).count()).resolves.toBe(0)
    await page.getByRole('button', { name: 'Enable' }).click()
    await page.getByRole('button', { name: 'Disable' }).waitFor()

    // Deleted after asking: back to the list, which is empty again.
    await page.getByRole('button', { name: 'Delete webhook' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Delete this webhook?' })
    await dialog.getByRole('button', { name: 'Delete webhook' }).click()
    await page.getByText('No webhook yet.').waitFor()
    expect(page.url()).toEndWith('/console/webhooks')
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('a test event of a chosen type reaches the receiver, signed, and the page shows the request and the 200 answer; a failing one shows its error', async () => {
    const hook = (await (
      await fetch(`${w.url}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.base}/test-events`, events: ['email.delivered', 'email.bounced'] }),
      })
    ).json()) as { id: string; secret: string }
    receiver.state.failing = false
    const before = receiver.calls.length
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of ['desktop', 'phone'] as const) {
        const page = await w.signedInAt(width, `/console/webhooks/${hook.id}`, 'owner@example.com', { colorScheme: scheme })
        await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' })
        const panel = page.getByRole('region', { name: 'Send a test event' })
        const type = panel.getByLabel('Event type')
        await type.waitFor()
        // The webhook's own types are offered, no others.
        await expect(type.locator('option').allTextContents()).resolves.toEqual(['email.delivered', 'email.bounced'])
        await type.selectOption('email.bounced')
        await panel.getByRole('button', { name: 'Send test event' }).click()
        await panel.getByRole('status').getByText(/^The endpoint answered HTTP 200 in \d+ ms\.$/).waitFor()
        const request = panel.getByRole('region', { name: 'Test request' })
        await request.getByText(`POST ${receiver.base}/test-events`).waitFor()
        await expect(request.getByRole('figure', { name: `POST ${receiver.base}/test-events` }).textContent()).resolves.toMatch(/x-mailstead-signature: v1=[0-9a-f]{64}/)
        await expect(request.getByRole('figure', { name: 'Body (JSON)' }).textContent()).resolves.toContain('"type": "email.bounced"')
        const response = panel.getByRole('region', { name: 'Test response' })
        await response.getByText('HTTP 200').waitFor()
        await expect(response.textContent()).resolves.toContain('"received": true')
        if (width === 'phone') await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390)
        await screenshot(page, 'webhook-test-event')
        await page.context().close()
      }
    }
    // Each call reached the receiver as a signed test of the type chosen, and none is logged as a delivery.
    const tests = receiver.calls.slice(before).filter((c) => c.path === '/test-events')
    expect(tests).toHaveLength(4)
    for (const call of tests) {
      expect(JSON.parse(call.body)).toMatchObject({ type: 'email.bounced', test: true })
      expect(call.headers.get('x-mailstead-test')).toBe('true')
      expect(verifySignature(hook.secret, call.headers, call.body, Date.now())).toBe(true)
    }
    const logged = await w.t.request('GET', `/webhooks/${hook.id}/deliveries`, { key: project.secretKey })
    expect(logged.body.total).toBe(0)

    // The receiver fails: its status and the beginning of its answer are shown.
    receiver.state.failing = true
    const page = await w.signedInAt('desktop', `/console/webhooks/${hook.id}`)
    const panel = page.getByRole('region', { name: 'Send a test event' })
    await panel.getByRole('button', { name: 'Send test event' }).click()
    await panel.getByRole('status').getByText(/^The endpoint answered HTTP 500 in \d+ ms, which is not a success\.$/).waitFor()
    await panel.getByRole('region', { name: 'Test response' }).getByText('Failed').waitFor()
    await expect(panel.getByRole('region', { name: 'Test response' }).textContent()).resolves.toContain('receiver down for maintenance')
    await screenshot(page, 'webhook-test-event-failed')
    expect(await axeViolations(page)).toEqual([])
    receiver.state.failing = false
    await page.context().close()

    // A member or viewer may not send one: no panel.
    const member = await w.signedInAt('desktop', `/console/webhooks/${hook.id}`, 'member@example.com')
    await member.getByRole('heading', { name: 'Webhook', level: 1 }).waitFor()
    await member.getByText('Nothing sent to this endpoint yet.').waitFor()
    expect(await member.getByRole('region', { name: 'Send a test event' }).count()).toBe(0)
    await member.context().close()
    await w.t.request('DELETE', `/webhooks/${hook.id}`, { key: project.secretKey })
    expect(w.problems).toEqual([])
  }, 90_000)

  test('on a phone, and a member or viewer sees the endpoints and their logs but no way to change them', async () => {
    const made = (await (
      await fetch(`${w.url}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.base}/phone/${'long-segment-'.repeat(8)}`, events: ['*'] }),
      })
    ).json()) as { id: string }
    receiver.state.failing = true
    expect((await addContact('phone@example.org')).status).toBe(201)
    await until(() => receiver.calls.some((c) => c.path.startsWith('/phone/')), 'the phone webhook call')

    const owner = await w.signedInAt('phone', '/console/webhooks')
    await owner.getByRole('table', { name: 'Endpoints' }).getByText('All events').waitFor()
    await screenshot(owner, 'webhooks')
    await owner.getByRole('link', { name: /^Endpoint .*\/phone\// }).click()
    const card = owner.getByRole('list', { name: 'Deliveries' }).getByRole('listitem').first()
    await card.getByText(/^HTTP 500/).first().waitFor()
    await card.getByText('Request and response').click()
    await owner.getByRole('button', { name: 'Rotate secret' }).waitFor()
    await screenshot(owner, 'webhook-detail')
    // Nothing is wider than the phone's screen.
    await expect(owner.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390)
    await owner.context().close()

    for (const email of ['member@example.com', 'viewer@example.com']) {
      const page = await w.signedInAt('phone', `/console/webhooks/${made.id}`, email)
      await page.getByRole('list', { name: 'Deliveries' }).getByRole('listitem').first().waitFor()
      for (const name of ['Edit', 'Disable', 'Rotate secret', 'Delete webhook']) {
        await expect(page.getByRole('button', { name }).count()).resolves.toBe(0)
      }
      await expect(page.getByRole('button', { name: /^Replay/ }).count()).resolves.toBe(0)
      await page.getByRole('link', { name: '← All webhooks' }).click()
      await page.getByText(/can see the webhooks and their deliveries/).waitFor()
      await expect(page.getByRole('button', { name: 'Add an endpoint' }).count()).resolves.toBe(0)
      if (email.startsWith('viewer')) await screenshot(page, 'webhooks-viewer')
      await page.context().close()
    }

    // A webhook that does not exist says so, with a way back.
    const missing = await w.signedInAt('desktop', '/console/webhooks/nope')
    await missing.getByRole('alert').getByText(/not found/i).waitFor()
    await missing.getByRole('link', { name: '← All webhooks' }).waitFor()
    await missing.context().close()
    expect(w.problems).toEqual([])
  })
})
