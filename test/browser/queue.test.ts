// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { publishRecords } from '../helpers/domains.ts'
import { FakeDns, FAKE_DNS_TIMEOUT_MS } from '../helpers/fake-dns.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'
import { until, waitFor } from '../helpers/until.ts'

let w: ConsoleWorld
let dns: FakeDns
let project: { id: number; secretKey: string }

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${w.url}${path}`, { method, headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as any }
}
const send = (to: string, extra: Record<string, unknown> = {}) => api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to, subject: 'Hi', text: 'Hi', ...extra })
/** Waits until `read` answers `expected` (a page that is refetching), for 5 s at most. */
async function eventually(read: () => Promise<unknown>, expected: unknown) {
  expect(await until(read, (value) => value === expected, 5000, 100)).toBe(expected)
}

const delivery = (recipient: string) => w.t.app.db.selectFrom('deliveries').selectAll().where('recipient', '=', recipient).executeTakeFirstOrThrow()

describeInBrowser('the Queue page in Chromium', () => {
  beforeAll(async () => {
    dns = await new FakeDns().start()
    w = await startConsoleWorld({ 'dns-servers': dns.address, 'dns-timeout-ms': String(FAKE_DNS_TIMEOUT_MS), hostname: 'mx.mailstead.test' })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const viewer = await makeAccount(w.t, 'viewer@example.com')
    project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, project.id, viewer.id, 'viewer', Date.now()))
    await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Quiet', Date.now()))
    const domain = await api('POST', '/api/v1/domains', { name: 'sender.example.com', region: 'us-east-1' })
    publishRecords(dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    // Nobody answers for these domains yet (SERVFAIL): their mail is deferred, to be tried again later.
    dns.set('stuck.example', { servfail: true })
    dns.set('slow.example', { servfail: true })
    for (const to of ['a@stuck.example', 'b@stuck.example', 'c@stuck.example', 'e@slow.example']) expect((await send(to)).status).toBe(200)
    expect((await send('later@later.example', { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() })).status).toBe(200)
    const deferred = async () => (await w.t.app.db.selectFrom('deliveries').select('state').where('state', '=', 'deferred').execute()).length
    expect(await until(deferred, (n) => n >= 4)).toBe(4)
  })
  afterAll(async () => {
    await w?.close()
    await dns?.stop()
  })

  test('counts by state and destination, a filtered list, a delivery retried and one cancelled, and every deferred one retried', async () => {
    const page = await w.signedInAt('desktop', '/console/queue')
    const byState = page.getByRole('region', { name: 'By state' })
    await byState.getByRole('definition').first().waitFor()
    const count = (label: string) => byState.getByRole('term').filter({ hasText: label }).locator('xpath=following-sibling::dd[1]').textContent()
    await eventually(() => count('Deferred'), '4')
    await eventually(() => count('Scheduled'), '1')
    await eventually(() => count('Queued'), '0')
    await page.getByText('5 deliveries wait.').waitFor()
    const byDomain = page.getByRole('table', { name: 'Waiting by destination domain' })
    await expect(byDomain.getByRole('row').nth(1).textContent()).resolves.toContain('stuck.example3')
    const list = page.getByRole('table', { name: 'Deliveries waiting' })
    await list.getByText('later@later.example').waitFor()
    expect(await list.getByRole('row').count()).toBe(6)
    await screenshot(page, 'queue')

    // Only stuck.example's, from its row in the counts.
    await byDomain.getByRole('button', { name: 'Show deliveries to stuck.example' }).click()
    const stuck = page.getByRole('table', { name: 'Deliveries to stuck.example' })
    await stuck.getByText('a@stuck.example').waitFor()
    expect(await stuck.getByRole('row').count()).toBe(4)
    await expect(page.getByLabel('Destination domain').inputValue()).resolves.toBe('stuck.example')

    // Retried: due now, tried again at once, and deferred again (nobody answers yet).
    const before = (await delivery('a@stuck.example')).attempts
    await stuck.getByRole('button', { name: 'Retry a@stuck.example' }).click()
    const retry = page.getByRole('alertdialog', { name: 'Retry a@stuck.example now?' })
    await retry.getByRole('button', { name: 'Retry now' }).click()
    await retry.waitFor({ state: 'detached' })
    const settled = async () => {
      const row = await delivery('a@stuck.example')
      return row.attempts > before && row.state === 'deferred'
    }
    await waitFor(settled, 'the retried delivery to be deferred again')
    const after = await delivery('a@stuck.example')
    expect(after.attempts).toBe(before + 1)
    expect(after.state).toBe('deferred')
    await page.getByRole('button', { name: 'Refresh' }).click()
    // Its row reads the new count of attempts (the Attempts cell holds the number alone).
    await stuck.getByRole('row').filter({ hasText: 'a@stuck.example' }).getByRole('cell', { name: String(before + 1), exact: true }).waitFor()

    // Cancelled after asking: out of the list and the counts.
    await stuck.getByRole('button', { name: 'Cancel b@stuck.example' }).click()
    const cancel = page.getByRole('alertdialog', { name: 'Cancel the delivery to b@stuck.example?' })
    await screenshot(page, 'queue-cancel')
    await cancel.getByRole('button', { name: 'Cancel delivery' }).click()
    await stuck.getByText('b@stuck.example').waitFor({ state: 'detached' })
    await eventually(() => count('Deferred'), '3')
    expect((await delivery('b@stuck.example')).state).toBe('cancelled')

    // By state: the scheduled one alone.
    await page.getByLabel('State', { exact: true }).selectOption('scheduled')
    await page.getByLabel('Destination domain').fill('')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    const scheduled = page.getByRole('table', { name: 'Deliveries, scheduled' })
    await scheduled.getByText('later@later.example').waitFor()
    expect(await scheduled.getByRole('row').count()).toBe(2)
    await expect(scheduled.getByRole('button', { name: 'Retry later@later.example' }).count()).resolves.toBe(0)
    await page.getByLabel('State', { exact: true }).selectOption('sending')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByText('No delivery waits that matches these filters.').waitFor()
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await page.getByRole('table', { name: 'Deliveries waiting' }).getByText('c@stuck.example').waitFor()

    // Every deferred delivery, after asking.
    const attempts = (await delivery('e@slow.example')).attempts
    await page.getByRole('button', { name: 'Retry all deferred' }).click()
    await page.getByRole('alertdialog', { name: 'Retry everything deferred now?' }).getByRole('button', { name: 'Retry all now' }).click()
    await page.getByRole('status').filter({ hasText: '3 deferred deliveries are due now.' }).waitFor()
    expect((await until(() => delivery('e@slow.example'), (row) => row.attempts !== attempts)).attempts).toBe(attempts + 1)
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('on a phone; a viewer sees the queue without retry or cancel; a project with nothing waiting says so', async () => {
    const owner = await w.signedInAt('phone', '/console/queue')
    await owner.getByRole('table', { name: 'Deliveries waiting' }).getByText('later@later.example').waitFor()
    await owner.getByRole('button', { name: 'Cancel later@later.example' }).waitFor()
    await screenshot(owner, 'queue')
    await expect(owner.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390)
    await owner.getByRole('button', { name: 'Menu' }).click()
    await owner.getByLabel('Current project', { exact: true }).selectOption({ label: 'Quiet' })
    await owner.getByText('Nothing waits: every delivery has left.').waitFor()
    await owner.getByText('0 deliveries wait.').waitFor()
    await expect(owner.getByRole('button', { name: 'Retry all deferred' }).count()).resolves.toBe(0)
    await screenshot(owner, 'queue-empty')
    await owner.context().close()

    const viewer = await w.signedInAt('desktop', '/console/queue', 'viewer@example.com')
    await viewer.getByRole('table', { name: 'Deliveries waiting' }).getByText('later@later.example').waitFor()
    await viewer.getByText('Your role (viewer) can see the queue').waitFor()
    await expect(viewer.getByRole('button', { name: /^(Retry|Cancel)/ }).count()).resolves.toBe(0)
    await screenshot(viewer, 'queue-viewer')
    await viewer.context().close()
    expect(w.problems).toEqual([])
  })
})
