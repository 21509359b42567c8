// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount, PASSWORD } from '../helpers/accounts.ts'
import { until } from '../helpers/until.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld } from './harness.ts'

/*
 * The console's sandbox switches: on the first project's form, and on the Settings page, where a
 * viewer only reads it.
 */

let w: ConsoleWorld
let shop: { id: number; secretKey: string }

const project = async (key: string) => (await w.t.request('GET', '/api/v1/project', { key })).body

describeInBrowser('the sandbox switches in Chromium', () => {
  beforeAll(async () => {
    w = await startConsoleWorld()
    const owner = await makeAccount(w.t, 'owner@example.com')
    shop = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
  })
  afterAll(() => w?.close())

  test('Settings: the owner turns the sandbox on, and off again', async () => {
    const page = await w.signedInAt('desktop', '/console/settings')
    const sandbox = page.getByRole('region', { name: 'Sandbox' }).getByRole('switch', { name: 'Sandbox' })
    await sandbox.waitFor({ state: 'attached' })
    expect(await sandbox.isChecked()).toBe(false)
    await sandbox.click({ force: true })
    expect((await until(() => project(shop.secretKey), (p) => p.sandbox)).sandbox).toBe(true)
    await screenshot(page, 'settings-sandbox')
    await sandbox.click({ force: true })
    expect((await until(() => project(shop.secretKey), (p) => !p.sandbox)).sandbox).toBe(false)
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('a first project made with the sandbox box ticked is a sandbox', async () => {
    await makeAccount(w.t, 'second@example.com')
    const page = await w.open('desktop', '/console/')
    await w.signIn(page, 'second@example.com', PASSWORD)
    await page.getByRole('heading', { name: 'Create your first project' }).waitFor()
    await page.getByLabel('Project name').fill('Playground')
    await page.getByRole('checkbox', { name: /Sandbox/ }).check({ force: true })
    await page.getByRole('button', { name: 'Create project' }).click()
    await page.getByRole('heading', { name: 'Playground is ready' }).waitFor()
    const made = await w.t.app.db.selectFrom('projects').select('sandbox').where('name', '=', 'Playground').executeTakeFirstOrThrow()
    expect(made.sandbox).toBe(1)
    await page.context().close()
  })
})
