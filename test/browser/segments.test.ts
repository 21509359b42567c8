// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * The Segments pages in Chromium: contacts and events seeded through the API, a segment built
 * with an event-based condition whose live count changes as a data filter is added, an error
 * shown beside the filter it names, saved and found in the list with its count; a static
 * segment's members; what a viewer sees.
 */

let w: ConsoleWorld
let project: { id: number; secretKey: string; publicKey: string }

const api = (method: string, path: string, body?: unknown, key = project.secretKey) =>
  fetch(`${w.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })

const filter = (page: Page, number: string) => page.getByRole('group', { name: `Filter ${number}`, exact: true })
const count = (page: Page) => page.locator('.builder-count-value')

describeInBrowser('the Segments pages in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
    const owner = await makeAccount(w.t, 'owner@example.com')
    const viewer = await makeAccount(w.t, 'viewer@example.com')
    project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, project.id, viewer.id, 'viewer', Date.now()))
    const people: Array<[string, string, boolean]> = [
      ['ada@example.net', 'pro', true],
      ['bob@example.net', 'free', true],
      ['cy@example.net', 'pro', true],
      ['dee@example.net', 'pro', false],
      ['eve@example.net', 'free', false],
    ]
    for (const [email, plan, signedUp] of people) {
      expect((await api('POST', '/contacts', { email, data: { plan } })).status).toBe(201)
      if (signedUp) expect((await api('POST', '/v1/track', { email, event: 'signup' }, project.publicKey)).status).toBe(200)
    }
  }, 60_000)
  afterAll(async () => {
    await w?.close()
  })

  test('a segment built on an event, its count changing as a data filter is added, an error beside its filter, saved and listed with its count', async () => {
    const page = await w.signedInAt('desktop', '/console/segments')
    await page.getByText('No segment yet.').waitFor()
    await screenshot(page, 'segments-empty')
    await page.getByRole('link', { name: 'New segment' }).click()
    await page.getByRole('heading', { name: 'New segment', level: 1 }).waitFor()
    await page.getByLabel('Name', { exact: true }).fill('Pro sign-ups')

    // event.signup triggered within 7 days: the three who signed up.
    const first = filter(page, '1.1')
    await first.getByLabel('Field').selectOption({ label: 'Event' })
    await first.getByLabel('Event name').fill('signup')
    await first.getByLabel('Operator').selectOption({ label: 'happened in the last' })
    await first.getByLabel('How many').fill('7')
    expect(await first.getByLabel('Unit').inputValue()).toBe('days')
    await count(page).getByText('3 members').waitFor()

    // A data filter with a key the server refuses: its message beside that filter, then fixed.
    await page.getByRole('button', { name: 'Add filter to group 1' }).click()
    const second = filter(page, '1.2')
    await second.getByLabel('Field').selectOption({ label: 'Data field' })
    await second.getByLabel('Key').fill('pl"an')
    await second.getByText('data.<key> needs a key').waitFor()
    expect(await first.locator('.field-error').count()).toBe(0)
    await screenshot(page, 'segment-builder-error')
    await second.getByLabel('Key').fill('plan')
    await second.getByLabel('Value', { exact: true }).fill('pro')
    await count(page).getByText('2 members').waitFor()
    const members = page.getByRole('list', { name: 'Members found' })
    expect(await members.getByRole('link').allTextContents()).toEqual(['cy@example.net', 'ada@example.net'])
    expect(await members.getByRole('link', { name: 'ada@example.net' }).getAttribute('href')).toMatch(/^\/console\/contacts\/[\w-]+$/)

    // Any group (OR) with a nested condition: counted too.
    await page.getByRole('button', { name: 'Add group', exact: true }).click()
    await filter(page, '2.1').getByLabel('Field').selectOption({ label: 'Email address' })
    await filter(page, '2.1').getByLabel('Operator').selectOption({ label: 'starts with' })
    await filter(page, '2.1').getByLabel('Value', { exact: true }).fill('eve')
    await page.getByRole('radio', { name: 'Any group (OR)' }).first().click({ force: true })
    await count(page).getByText('3 members').waitFor()
    await page.getByRole('button', { name: 'Remove group 2' }).click()
    await count(page).getByText('2 members').waitFor()

    // A nested condition inside group 1: its filter narrows the count; taken away, it is back.
    await page.getByRole('button', { name: 'Add nested condition to group 1' }).click()
    const nested = filter(page, '1.1.1')
    await nested.getByLabel('Field').selectOption({ label: 'Email activity' })
    expect(await nested.getByLabel('Activity').locator('option').allTextContents()).toEqual(['delivered', 'opened', 'clicked', 'bounced', 'complained'])
    await nested.getByLabel('Field').selectOption({ label: 'Email address' })
    await nested.getByLabel('Operator').selectOption({ label: 'starts with' })
    await nested.getByLabel('Value', { exact: true }).fill('ada')
    await count(page).getByText('1 member', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Remove nested condition' }).click()
    await count(page).getByText('2 members').waitFor()

    await screenshot(page, 'segment-builder')
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Create segment' }).click()
    await page.waitForURL(/\/console\/segments\/(?!new)[\w-]+$/)
    await page.getByRole('heading', { name: 'Pro sign-ups', level: 1 }).waitFor()
    const id = page.url().split('/').pop()!
    const saved = (await (await api('GET', `/segments/${id}`)).json()) as any
    expect(saved).toMatchObject({ name: 'Pro sign-ups', type: 'DYNAMIC', memberCount: 2 })
    expect(saved.condition.groups[0].filters).toEqual([
      { field: 'event.signup', operator: 'triggeredWithin', value: 7, unit: 'days' },
      { field: 'data.plan', operator: 'equals', value: 'pro' },
    ])

    // Reopened, the builder shows the saved condition; tracking switched on and saved.
    await page.reload()
    await filter(page, '1.2').getByLabel('Key').waitFor()
    expect(await filter(page, '1.2').getByLabel('Key').inputValue()).toBe('plan')
    await count(page).getByText('2 members').waitFor()
    await page.getByText('Track membership').click()
    await page.getByRole('button', { name: 'Save segment' }).click()
    await page.getByText('Segment saved').first().waitFor()
    expect(((await (await api('GET', `/segments/${id}`)).json()) as any).trackMembership).toBe(true)

    await page.getByRole('link', { name: 'Segments', exact: true }).first().click()
    const row = page.getByRole('row', { name: /Pro sign-ups/ })
    await row.waitFor()
    expect(await row.getByRole('cell').allTextContents()).toEqual(['Pro sign-ups', 'Dynamic', '2', 'On', expect.any(String)])
    await screenshot(page, 'segments')
    expect(await axeViolations(page)).toEqual([])
    expect(w.problems).toEqual([])
  }, 90_000)

  test('a static segment: members added by email and removed; deleted after asking', async () => {
    const page = await w.signedInAt('desktop', '/console/segments/new')
    await page.getByLabel('Name', { exact: true }).fill('Beta testers')
    await page.getByRole('radio', { name: 'Static: a list' }).click({ force: true })
    await page.getByRole('button', { name: 'Create segment' }).click()
    await page.getByRole('heading', { name: 'Beta testers', level: 1 }).waitFor()
    await page.getByText('No member listed yet.').waitFor()
    await page.getByLabel('Add by email').fill('ada@example.net, new@example.net')
    await page.getByRole('button', { name: 'Add members' }).click()
    await page.getByRole('button', { name: 'Remove new@example.net' }).waitFor()
    await page.getByText('2 members.').waitFor()
    await page.getByRole('button', { name: 'Remove new@example.net' }).click()
    await page.getByText('1 member.').waitFor()
    await screenshot(page, 'segment-static')
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Delete segment Beta testers' }).click()
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete segment' }).click()
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor()
    await page.getByRole('row', { name: /Pro sign-ups/ }).waitFor()
    expect(await page.getByRole('row', { name: /Beta testers/ }).count()).toBe(0)
  }, 60_000)

  test('on a phone, and a viewer sees the segment and its live count but no control that changes it', async () => {
    const phone = await w.signedInAt('phone', '/console/segments')
    await phone.getByText('Pro sign-ups').waitFor()
    await screenshot(phone, 'segments')
    await phone.getByRole('link', { name: 'Pro sign-ups' }).click()
    await count(phone).getByText('2 members').waitFor()
    await screenshot(phone, 'segment-builder')
    expect(Number(await phone.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)

    const page = await w.signedInAt('desktop', '/console/segments', 'viewer@example.com')
    await page.getByText('Pro sign-ups').waitFor()
    expect(await page.getByRole('link', { name: 'New segment' }).count()).toBe(0)
    await page.getByRole('link', { name: 'Pro sign-ups' }).click()
    await count(page).getByText('2 members').waitFor()
    expect(await filter(page, '1.1').getByLabel('Event name').isDisabled()).toBe(true)
    for (const name of ['Save segment', 'Add filter', 'Add group', 'Delete']) expect(await page.getByRole('button', { name }).count()).toBe(0)
    expect(await page.getByText('Membership tracking: On').count()).toBe(1)
    await screenshot(page, 'segment-viewer')
    expect(await axeViolations(page)).toEqual([])
    expect(w.problems).toEqual([])
  }, 60_000)
})
