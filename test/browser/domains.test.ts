// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { expectedRecords } from '../../src/core/domains/records.ts'
import { zoneFileFor, zoneLines } from '../../src/core/domains/zone.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { publishRecords } from '../helpers/domains.ts'
import { FakeDns } from '../helpers/fake-dns.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'
import { until } from '../helpers/until.ts'

const HOST = 'mail.example.test'
const LONG = 'a-rather-long-subdomain-label-to-see-wrapping.and-another-long-label-here.example.org'

let w: ConsoleWorld
let dns: FakeDns
let project: { id: number; secretKey: string }

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${w.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${project.secretKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}

const domainNamed = async (name: string) => ((await api('GET', '/api/v1/domains')).body as any[]).find((d) => d.name === name)

/** What each record the API lists is for, in its order, as the page names them. */
const PURPOSES = [
  ['DKIM', 'TXT'],
  ['Return-path MX', 'MX'],
  ['SPF', 'TXT'],
  ['DMARC', 'TXT'],
  ['DKIM (Ed25519)', 'TXT'],
] as const

/** The record's card on the domain's page, by its heading ("SPF TXT record"). */
const card = (page: Page, purpose: string, type = 'TXT') => page.getByRole('region', { name: `${purpose} ${type} record`, exact: true })

/** Waits until `read` gives `expected` (as toEqual sees it), 5 s at most. */
async function eventually(read: () => Promise<unknown>, expected: unknown) {
  expect(await until(read, (value) => Bun.deepEquals(value, expected), 5000, 100)).toEqual(expected)
}

/** The page is no wider than its window: nothing long pushes it sideways. */
async function fitsWidth(page: Page) {
  const [scroll, client] = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as number[]
  expect(scroll!).toBeLessThanOrEqual(client!)
}

describeInBrowser('the Domains page in Chromium', () => {
  beforeAll(async () => {
    dns = await new FakeDns().start()
    w = await startConsoleWorld({ hostname: HOST, 'dns-servers': dns.address, 'dns-timeout-ms': '500' })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const viewer = await makeAccount(w.t, 'viewer@example.com')
    const member = await makeAccount(w.t, 'member@example.com')
    project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, project.id, viewer.id, 'viewer', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, project.id, member.id, 'member', Date.now()))
  })
  afterAll(async () => {
    await w?.close()
    await dns?.stop()
  })

  test('adding a domain and verifying it against the fake DNS', async () => {
    const page = await w.signedInAt('desktop', '/console/domains')
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
    await page.getByText('This project has no sending domain yet.').waitFor()
    await screenshot(page, 'domains-empty')

    // A name the API refuses: its message beside the field.
    await page.getByLabel('Domain name').fill('not a domain')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await page.getByText('must not contain spaces or control characters').waitFor()
    await expect(page.getByLabel('Domain name').getAttribute('aria-invalid')).resolves.toBe('true')
    await screenshot(page, 'domains-wizard-error')

    // A region the server does not have: the API's list beside the region's field.
    await page.getByLabel('Domain name').fill('example.com')
    await page.getByLabel('Region').fill('mars-north-1')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await page.getByText('Choose one of these for region: us-east-1').waitFor()
    await expect(page.getByLabel('Region').getAttribute('aria-invalid')).resolves.toBe('true')
    await expect(page.getByLabel('Domain name').getAttribute('aria-invalid')).resolves.toBe(null)
    await page.getByLabel('Region').fill('us-east-1')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await page.getByRole('heading', { name: 'example.com', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'Step 2 of 2: publish these records' }).waitFor()
    const domain = await domainNamed('example.com')
    expect(new URL(page.url()).pathname).toBe(`/console/domains/${domain.id}`)
    // Every record the API lists is on the page, not checked yet, each with its copy buttons.
    expect(domain.dnsRecords).toHaveLength(5)
    for (const [i, [purpose, type]] of PURPOSES.entries()) {
      const record = domain.dnsRecords[i]
      expect(record.type).toBe(type)
      const region = card(page, purpose, type)
      await expect(region.getByText(record.name, { exact: true }).count()).resolves.toBe(1)
      await expect(region.getByText(record.value, { exact: true }).count()).resolves.toBe(1)
      await expect(region.getByText('Not checked yet').count()).resolves.toBe(1)
      await expect(region.getByRole('button', { name: `Copy ${purpose} value` }).count()).resolves.toBe(1)
    }
    await screenshot(page, 'domains-wizard')

    // The copy button copies the value whole (a DKIM key of some 400 characters).
    const dkim = domain.dnsRecords[0]
    await page.getByRole('button', { name: 'Copy DKIM value' }).click()
    await page.getByRole('status').filter({ hasText: 'DKIM value copied' }).waitFor({ state: 'attached' })
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(dkim.value)

    // The zone file: built in the browser, the same lines as `mailstead domain records` prints.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download zone file' }).click()])
    expect(download.suggestedFilename()).toBe('example.com.zone')
    const zone = readFileSync((await download.path())!, 'utf8')
    const row = await w.t.app.db.selectFrom('domains').selectAll().where('id', '=', domain.id).executeTakeFirstOrThrow()
    const lines = zone.trimEnd().split('\n').filter((line) => !line.startsWith(';'))
    expect(lines.map((line) => line.replace(/ ; recommended$/, ''))).toEqual(zoneLines(expectedRecords(row, HOST)))

    // Published, but with an SPF record that names another host: it is wrong, the others good.
    const spf = domain.dnsRecords.find((r: any) => r.value.startsWith('v=spf1'))
    const mx = domain.dnsRecords.find((r: any) => r.type === 'MX')
    publishRecords(dns, domain.dnsRecords)
    dns.records(spf.name, { type: 'MX', exchange: mx.value, priority: 10 }, { type: 'TXT', data: 'v=spf1 include:_spf.elsewhere.example ~all' })
    await page.getByRole('button', { name: 'Verify now' }).click()
    const spfCard = card(page, 'SPF')
    await spfCard.getByText('Wrong').waitFor()
    await spfCard.getByText(spf.value, { exact: true }).waitFor()
    await spfCard.getByText('v=spf1 include:_spf.elsewhere.example ~all', { exact: true }).waitFor()
    await spfCard.getByText(`does not authorise ${HOST}`).waitFor()
    expect(await spfCard.locator('dt').allTextContents()).toEqual(['Name', 'Expected', 'Found', 'Problem', 'TTL'])
    for (const [purpose, type] of PURPOSES.filter(([purpose]) => purpose !== 'SPF')) await card(page, purpose, type).getByText('Good', { exact: true }).waitFor()
    await page.getByText('4 of 5 records right at the last check.').waitFor()
    await expect(page.getByRole('heading', { name: 'Step 2 of 2: publish these records' }).count()).resolves.toBe(0)
    expect((await domainNamed('example.com')).status).not.toBe('SUCCESS')
    await screenshot(page, 'domains-records-wrong')

    // The SPF record put right: every verdict good, the domain verified.
    publishRecords(dns, domain.dnsRecords)
    await page.getByRole('button', { name: 'Verify now' }).click()
    await spfCard.getByText('Good', { exact: true }).waitFor()
    await page.getByText('5 of 5 records right at the last check.').waitFor()
    for (const [purpose, type] of PURPOSES) await expect(card(page, purpose, type).getByText('Good', { exact: true }).count()).resolves.toBe(1)
    await page.locator('.page-header').getByText('Verified').waitFor()
    expect((await domainNamed('example.com')).status).toBe('SUCCESS')
    await screenshot(page, 'domains-records')

    // The list says so too.
    await page.getByRole('link', { name: '← All domains' }).click()
    const table = page.getByRole('table', { name: 'Sending domains' })
    await table.getByRole('row').filter({ hasText: 'example.com' }).getByText('Verified').waitFor()
    await screenshot(page, 'domains-list')
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('tracking toggles round-trip: a reload keeps them, the API agrees', async () => {
    const domain = (await api('POST', '/api/v1/domains', { name: 'tracked.example.com', region: 'us-east-1' })).body
    const page = await w.signedInAt('desktop', `/console/domains/${domain.id}`)
    const opens = page.getByRole('switch', { name: 'Open tracking' })
    const clicks = page.getByRole('switch', { name: 'Click tracking' })
    await opens.waitFor({ state: 'attached' })
    await expect(opens.isChecked()).resolves.toBe(false)
    await expect(clicks.isChecked()).resolves.toBe(false)
    await page.getByText('Open tracking').click()
    await eventually(() => opens.isChecked(), true)
    await eventually(async () => (await api('GET', `/api/v1/domains/${domain.id}`)).body.openTracking, true)
    await page.reload()
    await page.getByRole('heading', { name: 'tracked.example.com', level: 1 }).waitFor()
    await expect(page.getByRole('switch', { name: 'Open tracking' }).isChecked()).resolves.toBe(true)
    await expect(page.getByRole('switch', { name: 'Click tracking' }).isChecked()).resolves.toBe(false)
    // From the keyboard: focus the switch, Space toggles it.
    await page.getByRole('switch', { name: 'Click tracking' }).focus()
    await page.keyboard.press('Space')
    await eventually(async () => (await api('GET', `/api/v1/domains/${domain.id}`)).body.clickTracking, true)
    await page.getByRole('switch', { name: 'Open tracking' }).focus()
    await page.keyboard.press('Space')
    await eventually(async () => (await api('GET', `/api/v1/domains/${domain.id}`)).body.openTracking, false)
    await page.reload()
    await page.getByRole('heading', { name: 'tracked.example.com', level: 1 }).waitFor()
    await expect(page.getByRole('switch', { name: 'Open tracking' }).isChecked()).resolves.toBe(false)
    await expect(page.getByRole('switch', { name: 'Click tracking' }).isChecked()).resolves.toBe(true)
    await page.getByRole('link', { name: '← All domains' }).click()
    await page.getByRole('table', { name: 'Sending domains' }).getByRole('row').filter({ hasText: 'tracked.example.com' }).getByText('Clicks').waitFor()
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('delete asks first; Cancel keeps the domain, confirming removes it', async () => {
    await api('POST', '/api/v1/domains', { name: 'kept.example.com', region: 'us-east-1' })
    const domain = (await api('POST', '/api/v1/domains', { name: 'gone.example.com', region: 'us-east-1' })).body
    const page = await w.signedInAt('desktop', `/console/domains/${domain.id}`)
    await page.getByRole('button', { name: 'Delete domain gone.example.com' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Delete gone.example.com?' })
    await dialog.waitFor()
    await screenshot(page, 'domains-delete')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect((await api('GET', `/api/v1/domains/${domain.id}`)).status).toBe(200)
    await page.getByRole('button', { name: 'Delete domain gone.example.com' }).click()
    await dialog.getByRole('button', { name: 'Delete domain' }).click()
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/console/domains')
    const table = page.getByRole('table', { name: 'Sending domains' })
    await table.getByText('kept.example.com', { exact: true }).waitFor()
    await expect(table.getByText('gone.example.com').count()).resolves.toBe(0)
    expect((await api('GET', `/api/v1/domains/${domain.id}`)).status).toBe(404)
    // Its old address now says it is not found; an address that is no domain id is no page.
    await page.goto(`/console/domains/${domain.id}`)
    await page.getByRole('alert').getByText(/not found/i).waitFor()
    await page.goto('/console/domains/not-an-id')
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('a viewer and a member see the domains and their records, but no way to change them', async () => {
    // example.com, verified by the first test.
    const domain = await domainNamed('example.com')
    for (const email of ['viewer@example.com', 'member@example.com']) {
      const page = await w.signedInAt('phone', '/console/domains', email)
      await page.getByRole('table', { name: 'Sending domains' }).getByText('example.com', { exact: true }).waitFor()
      await page.getByText(`Your role (${email.split('@')[0]}) can see the domains`).waitFor()
      await expect(page.getByRole('button', { name: /^Add/ }).count()).resolves.toBe(0)
      await expect(page.getByLabel('Domain name').count()).resolves.toBe(0)
      if (email.startsWith('viewer')) await screenshot(page, 'domains-list-viewer')
      await page.goto(`/console/domains/${domain.id}`)
      await card(page, 'SPF').getByText('Good', { exact: true }).waitFor()
      await expect(page.getByRole('button', { name: 'Verify now' }).count()).resolves.toBe(0)
      await expect(page.getByRole('button', { name: /^Delete/ }).count()).resolves.toBe(0)
      await expect(page.getByRole('switch').count()).resolves.toBe(0)
      await page.getByText('Open tracking:').waitFor()
      // Copying is reading: the copy buttons stay.
      await expect(page.getByRole('button', { name: 'Copy SPF value' }).count()).resolves.toBe(1)
      await page.context().close()
    }
    expect(w.problems).toEqual([])
  })

  test('on a phone: the list, the wizard and the records of a long name fit the screen', async () => {
    await api('POST', '/api/v1/domains', { name: 'phone.example.com', region: 'us-east-1' })
    const page = await w.signedInAt('phone', '/console/domains')
    await page.getByRole('table', { name: 'Sending domains' }).waitFor()
    await fitsWidth(page)
    // Above a list, the form waits behind a button; opening it puts focus in its first field.
    await expect(page.getByLabel('Domain name').count()).resolves.toBe(0)
    await page.getByRole('button', { name: 'Add a domain' }).click()
    await expect(page.evaluate('document.activeElement.name')).resolves.toBe('name')
    await page.keyboard.type(LONG)
    await screenshot(page, 'domains-wizard-form')
    await page.getByRole('button', { name: 'Add domain' }).click()
    await page.getByRole('heading', { name: LONG, level: 1 }).waitFor()
    await fitsWidth(page)
    await screenshot(page, 'domains-wizard')
    const domain = await domainNamed(LONG)
    publishRecords(dns, domain.dnsRecords)
    dns.records(`_dmarc.${LONG}`, { type: 'TXT', data: 'v=spf1 -all' })
    await page.getByRole('button', { name: 'Verify now' }).click()
    await card(page, 'DMARC').getByText('Not found', { exact: true }).waitFor()
    await card(page, 'DKIM').getByText('Good', { exact: true }).waitFor()
    await page.locator('.page-header').getByText('Verified').waitFor()
    await fitsWidth(page)
    await screenshot(page, 'domains-records')
    await page.getByRole('link', { name: '← All domains' }).click()
    await page.getByRole('table', { name: 'Sending domains' }).getByText(LONG).waitFor()
    await fitsWidth(page)
    await screenshot(page, 'domains-list')
    await page.context().close()
    expect(w.problems).toEqual([])
  })
})

describeInBrowser('the Domain page on a host name that is not a public DNS name (the machine\'s own, "vm")', () => {
  let bare: ConsoleWorld
  let key: string
  beforeAll(async () => {
    bare = await startConsoleWorld({ hostname: 'vm' })
    const owner = await makeAccount(bare.t, 'owner@example.com')
    key = (await bare.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))).secretKey
  })
  afterAll(() => bare?.close())

  const addDomain = async (name: string) => {
    const response = await fetch(`${bare.url}/api/v1/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, region: 'us-east-1' }),
    })
    return (await response.json()) as any
  }

  test('the warning stands in place of the MX and SPF values and their copy buttons; the zone file is the CLI\'s', async () => {
    const domain = await addDomain('example.com')
    const page = await bare.signedInAt('desktop', `/console/domains/${domain.id}`)
    await page.getByRole('heading', { name: 'example.com', level: 1 }).waitFor()
    await page.getByText(domain.hostnameWarning, { exact: true }).waitFor()
    expect(domain.hostnameWarning).toContain('MAILSTEAD_HOSTNAME is "vm"')
    for (const [purpose, type] of [['Return-path MX', 'MX'], ['SPF', 'TXT']] as const) {
      const region = card(page, purpose, type)
      await region.getByText(/^Cannot be published yet: it would name "vm", which is not a public DNS name; set MAILSTEAD_HOSTNAME \(--hostname\)/).waitFor()
      await expect(region.getByRole('button', { name: `Copy ${purpose} value` }).count()).resolves.toBe(0)
      await expect(region.locator('code', { hasText: /\bvm\b/ }).count()).resolves.toBe(0)
      // The name to publish at stays, with its copy button: only the value cannot work.
      await expect(region.getByRole('button', { name: `Copy ${purpose} name` }).count()).resolves.toBe(1)
    }
    for (const [purpose, type] of PURPOSES.filter(([, type], i) => i !== 1 && i !== 2)) {
      await expect(card(page, purpose, type).getByRole('button', { name: `Copy ${purpose} value` }).count()).resolves.toBe(1)
    }
    await fitsWidth(page)
    await screenshot(page, 'domains-bare-host')

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download zone file' }).click()])
    const zone = readFileSync((await download.path())!, 'utf8')
    const row = await bare.t.app.db.selectFrom('domains').selectAll().where('id', '=', domain.id).executeTakeFirstOrThrow()
    const lines = zone.trimEnd().split('\n').slice(2).map((line) => line.replace(/ ; recommended$/, ''))
    expect(lines).toEqual(zoneFileFor(expectedRecords(row, 'vm'), 'vm'))
    expect(lines.filter((line) => line.startsWith('; mst.example.com. '))).toHaveLength(2)
    await page.context().close()
    expect(bare.problems).toEqual([])
  })

  test('on a phone: the warning and the records fit the screen', async () => {
    const domain = await addDomain('phone.example.com')
    const page = await bare.signedInAt('phone', `/console/domains/${domain.id}`)
    await page.getByText(domain.hostnameWarning, { exact: true }).waitFor()
    await card(page, 'SPF').getByText(/^Cannot be published yet/).waitFor()
    await fitsWidth(page)
    await screenshot(page, 'domains-bare-host')
    await page.context().close()
    expect(bare.problems).toEqual([])
  })
})
