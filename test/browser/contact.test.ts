// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount } from '../helpers/accounts.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * A contact's page in Chromium: its data edited as typed keys and values and the edit seen in its
 * timeline; its erasure, asked with the address typed, after which the address is found nowhere
 * through the API; a member, who may change contacts, is offered no erasure.
 */

let w: ConsoleWorld
let project: { id: number; secretKey: string }

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: project.secretKey, body })

async function contact(email: string, data: Record<string, unknown>) {
  const made = await api('POST', '/contacts', { email, data })
  await api('POST', '/v1/track', { email, event: 'signed-up', data: { source: 'ad' } })
  return made.body.id as string
}

describeInBrowser("a contact's page in Chromium", () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
    const owner = await makeAccount(w.t, 'owner@example.com')
    const member = await makeAccount(w.t, 'member@example.com')
    project = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now(), { sandbox: true }))
    await w.t.app.writer.run((trx) => addMember(trx, project.id, member.id, 'member', Date.now()))
  })
  afterAll(() => w?.close())

  test("its data edited as typed keys, and the edit in its timeline; axe finds nothing in either theme", async () => {
    const id = await contact('ada@example.net', { plan: 'free', vip: false })
    const page = await w.signedInAt('desktop', `/console/contacts/${id}`)
    await page.getByRole('heading', { name: 'ada@example.net', level: 1 }).waitFor()
    await page.getByText('signed-up').waitFor()
    await page.getByLabel('Value of plan').fill('pro')
    await page.getByRole('button', { name: 'Add a key' }).click()
    await page.getByLabel('Key of new key').fill('seats')
    await page.getByLabel('Type of seats').selectOption('number')
    await page.getByLabel('Value of seats').fill('three')
    await page.getByRole('button', { name: 'Save data' }).click()
    await page.getByText('The value must be a number').waitFor()
    await page.getByLabel('Value of seats').fill('3')
    await page.getByRole('button', { name: 'Remove vip' }).click()
    await page.getByRole('button', { name: 'Save data' }).click()
    await page.getByText('Data saved').waitFor()

    // The timeline says what changed, newest first.
    const first = page.getByRole('list', { name: 'Events, newest first' }).getByRole('listitem').first()
    await first.getByText('Contact changed').waitFor()
    await first.getByText('"free" → "pro"').waitFor()
    await first.getByText('(none) → 3').waitFor()
    await first.getByText('no → (none)').waitFor()
    expect((await api('GET', `/contacts/${id}`)).body.data).toEqual({ plan: 'pro', seats: 3, source: 'ad' })

    // React Aria's input is visually hidden under its label: a person clicks the label.
    await page.getByText('Subscribed to marketing mail').click()
    await page.getByText('Unsubscribed', { exact: true }).first().waitFor()
    expect(await page.getByRole('switch', { name: 'Subscribed to marketing mail' }).isChecked()).toBe(false)
    expect((await api('GET', `/contacts/${id}`)).body.subscribed).toBe(false)
    await page.locator('.toast').first().waitFor({ state: 'detached', timeout: 15_000 })
    await screenshot(page, 'contact')
    expect(await axeViolations(page)).toEqual([])
    for (const tab of ['Emails', 'Segments and books', 'Workflow runs']) {
      await page.getByRole('tab', { name: tab }).click()
      await page.getByRole('tabpanel').waitFor()
      expect({ tab, violations: await axeViolations(page) }).toEqual({ tab, violations: [] })
    }
    await page.context().close()

    const phone = await w.signedInAt('phone', `/console/contacts/${id}`)
    await phone.getByRole('heading', { name: 'ada@example.net', level: 1 }).waitFor()
    await phone.getByText('Contact changed').first().waitFor()
    await screenshot(phone, 'contact')
    expect(Number(await phone.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
    await phone.context().close()
    expect(w.problems).toEqual([])
  }, 120_000)

  test('its emails with their states, its segments and books, its workflow runs', async () => {
    const id = await contact('cy@example.net', { plan: 'pro' })
    const book = (await api('POST', '/api/v1/contactBooks', { name: 'Letters' })).body
    await api('POST', `/api/v1/contactBooks/${book.id}/contacts`, { email: 'cy@example.net' })
    await api('POST', '/segments', { name: 'Pro plan', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] } })
    const sent = await api('POST', '/api/v1/emails', { to: 'cy@example.net', from: 'shop@shop.example', subject: 'Your receipt', html: '<p>Thanks</p>' })
    expect(sent.status).toBe(200)
    const flow = await api('POST', '/workflows', { name: 'Welcome', enabled: true, triggerType: 'MANUAL', steps: [{ id: 'mail', type: 'SEND_EMAIL', config: { subject: 'Welcome', body: '<p>Hi</p>', from: 'shop@shop.example' } }] })
    expect((await api('POST', `/workflows/${flow.body.id}/trigger`, { contactIds: [id] })).body.entered).toBe(1)

    const page = await w.signedInAt('desktop', `/console/contacts/${id}`)
    await page.getByRole('tab', { name: 'Emails' }).click()
    await page.getByRole('link', { name: 'Your receipt' }).waitFor()
    await page.getByRole('link', { name: 'Welcome' }).waitFor()
    await screenshot(page, 'contact-emails')
    await page.getByRole('tab', { name: 'Segments and books' }).click()
    await page.getByRole('link', { name: 'Pro plan' }).waitFor()
    await page.getByRole('tabpanel').getByText('Letters', { exact: true }).first().waitFor()
    await screenshot(page, 'contact-memberships')
    await page.getByRole('tab', { name: 'Workflow runs' }).click()
    await page.getByRole('tabpanel').getByText('Welcome').waitFor()
    await screenshot(page, 'contact-runs')
    expect(await axeViolations(page)).toEqual([])
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 120_000)

  test('a contact that is not there says so', async () => {
    const page = await w.signedInAt('desktop', '/console/contacts/00000000-0000-7000-8000-000000000000')
    await page.getByRole('heading', { name: 'Contact not found', level: 1 }).waitFor()
    await page.context().close()
  }, 60_000)

  test('a member is offered no erasure; an owner erases after typing the address, and it is found nowhere through the API', async () => {
    const id = await contact('bea@example.net', { plan: 'free' })
    const memberPage = await w.signedInAt('desktop', `/console/contacts/${id}`, 'member@example.com')
    await memberPage.getByRole('button', { name: 'Export data' }).waitFor()
    expect(await memberPage.getByRole('button', { name: 'Erase contact' }).count()).toBe(0)
    await memberPage.context().close()

    const page = await w.signedInAt('desktop', `/console/contacts/${id}`)
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Export data' }).click()
    const exported = JSON.parse(readFileSync(await (await download).path(), 'utf8'))
    expect(exported.contact).toMatchObject({ id, email: 'bea@example.net' })

    await page.getByRole('button', { name: 'Erase contact' }).click()
    const dialog = page.getByRole('alertdialog', { name: 'Erase this contact?' })
    const erase = dialog.getByRole('button', { name: 'Erase for good' })
    expect(await erase.isDisabled()).toBe(true)
    await dialog.getByLabel('Type bea@example.net to confirm').fill('BEA@example.net')
    await screenshot(page, 'contact-erase')
    expect(await axeViolations(page)).toEqual([])
    await erase.click()
    await page.waitForURL(/\/console\/contacts$/)
    await page.getByText('Contact erased').waitFor()

    expect((await api('GET', `/contacts/${id}`)).status).toBe(404)
    for (const path of ['/contacts?search=bea@example.net', '/contacts?limit=100', '/api/v1/emails?recipient=bea@example.net', '/api/v1/suppressions?limit=100']) {
      expect({ path, found: JSON.stringify((await api('GET', path)).body).includes('bea@example.net') }).toEqual({ path, found: false })
    }
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 120_000)
})
