// @database-incidental: the console in a browser; the API and its database stand behind it, tested on both databases elsewhere
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { simpleParser } from 'mailparser'
import type { Page } from 'playwright-core'
import { addMember, createOwnedProject } from '../../src/core/accounts/members.service.ts'
import { makeAccount, PASSWORD } from '../helpers/accounts.ts'
import type { FakeDns } from '../helpers/fake-dns.ts'
import type { FakeMx } from '../helpers/fake-mx.ts'
import { startRecipients } from '../helpers/recipients.ts'
import { waitFor } from '../helpers/until.ts'
import { axeViolations } from './axe.ts'
import { describeInBrowser, screenshot, startConsoleWorld, type ConsoleWorld, type Width } from './harness.ts'

/*
 * Projects from the switcher: a second one made (a sandbox), its keys shown once and working
 * against the API, the switch between the two, a rename that the switcher shows at once, and
 * Rename not offered to a viewer. Invitations emailed by the server: one reaches the invitee's MX
 * (found through fake DNS) and its link opens the invitation page; one to a domain without a mail
 * server says why it was not sent and keeps the link to copy. The new-project dialog at both widths
 * in both themes, checked by axe-core.
 */

let w: ConsoleWorld
let dns: FakeDns
let mx: FakeMx

const switcher = (page: Page) => page.getByRole('combobox', { name: 'Current project', exact: true })
const projectNames = (page: Page) => switcher(page).getByRole('option').allTextContents()

describeInBrowser('projects from the switcher, and invitations by email, in Chromium', () => {
  beforeAll(async () => {
    const recipients = await startRecipients()
    dns = recipients.dns
    mx = recipients.mx
    w = await startConsoleWorld({
      ...recipients.settings,
      hostname: 'mx.mailstead.test',
      'smtp-timeout-seconds': '1',
      'delivery-attempt-timeout-seconds': '5',
    })
    const owner = await makeAccount(w.t, 'owner@example.com')
    const viewer = await makeAccount(w.t, 'viewer@example.com')
    const shop = await w.t.app.writer.run((trx) => createOwnedProject(trx, owner.id, 'Shop', Date.now()))
    await w.t.app.writer.run((trx) => addMember(trx, shop.id, viewer.id, 'viewer', Date.now()))
  })
  afterAll(async () => {
    await w?.close()
    await mx?.stop()
    await dns?.stop()
  })

  test('a second project made from the switcher shows its keys once, then is switched to; the two switch back and forth; a rename shows in the switcher', async () => {
    const page = await w.signedInAt('desktop', '/console/settings')
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    expect(await projectNames(page)).toEqual(['Shop'])

    await page.getByRole('button', { name: 'New project' }).click()
    const dialog = page.getByRole('dialog', { name: 'New project' })
    // A name is needed: the API's refusal shows beside the field.
    await dialog.getByLabel('Project name').fill('   ')
    await dialog.getByRole('button', { name: 'Create project' }).click()
    await dialog.locator('.field-error, .form-errors p').first().waitFor()
    await dialog.getByLabel('Project name').fill('Staging')
    await dialog.getByRole('switch', { name: 'Sandbox: mail never leaves the server' }).check({ force: true })
    await dialog.getByRole('button', { name: 'Create project' }).click()

    const ready = page.getByRole('dialog', { name: 'Staging is ready' })
    const secretKey = String(await ready.getByLabel('Secret key', { exact: true }).textContent())
    const publicKey = String(await ready.getByLabel('Public key', { exact: true }).textContent())
    expect(secretKey).toStartWith('sk_')
    expect(publicKey).toStartWith('pk_')
    // The keys are shown once: Escape does not close the dialog over them.
    await page.keyboard.press('Escape')
    await ready.getByRole('button', { name: 'Switch to Staging' }).waitFor()
    await screenshot(page, 'projects-new-keys')
    // The key works, for the new project, a sandbox.
    const answer = await w.t.request('GET', '/api/v1/project', { key: secretKey })
    expect(answer.body).toMatchObject({ name: 'Staging', sandbox: true })

    await ready.getByRole('button', { name: 'Switch to Staging' }).click()
    await ready.waitFor({ state: 'detached' })
    await page.getByLabel('Project name').and(page.locator('[value="Staging"]')).waitFor()
    expect(await switcher(page).inputValue()).toBe(String(answer.body.id))
    expect((await projectNames(page)).sort()).toEqual(['Shop', 'Staging'])
    expect(await page.content()).not.toContain(secretKey)

    // Back to Shop, and to Staging again.
    await switcher(page).selectOption({ label: 'Shop' })
    await page.getByLabel('Project name').and(page.locator('[value="Shop"]')).waitFor()
    await switcher(page).selectOption({ label: 'Staging' })
    await page.getByLabel('Project name').and(page.locator('[value="Staging"]')).waitFor()

    // Renamed from the switcher: the switcher and the Settings form show the new name, with no reload.
    await page.getByRole('button', { name: 'Rename Staging' }).click()
    const rename = page.getByRole('dialog', { name: 'Rename Staging' })
    await rename.getByLabel('Project name').fill('Staging EU')
    await screenshot(page, 'projects-rename')
    await rename.getByRole('button', { name: 'Rename project' }).click()
    await rename.waitFor({ state: 'detached' })
    await switcher(page).getByRole('option', { name: 'Staging EU' }).waitFor({ state: 'attached' })
    expect((await projectNames(page)).sort()).toEqual(['Shop', 'Staging EU'])
    await page.getByLabel('Project name').and(page.locator('[value="Staging EU"]')).waitFor()
    expect((await w.t.request('GET', '/api/v1/project', { key: secretKey })).body.name).toBe('Staging EU')
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)

  test('a viewer is not offered Rename, and is told who renames', async () => {
    const page = await w.signedInAt('phone', '/console/', 'viewer@example.com')
    await page.getByRole('button', { name: 'Menu' }).click()
    await page.getByText('Your role: viewer. An owner or admin renames the project.').waitFor()
    expect(await page.getByRole('button', { name: /^Rename/ }).count()).toBe(0)
    await page.getByRole('button', { name: 'New project' }).waitFor()
    await page.context().close()
    expect(w.problems).toEqual([])
  })

  test('an invitation is emailed to the invitee’s MX and its link opens the invitation page; one that cannot be emailed says why and keeps the link', async () => {
    const page = await w.signedInAt('desktop', '/console/settings')
    await switcher(page).selectOption({ label: 'Shop' })
    await page.getByLabel('Project name').and(page.locator('[value="Shop"]')).waitFor()
    const invitations = page.getByRole('region', { name: 'Invitations' })
    await invitations.getByLabel('Email address').fill('bob@example.net')
    await invitations.getByRole('button', { name: 'Create invitation' }).click()
    const made = page.getByRole('region', { name: 'Invitation for bob@example.net' })
    await made.getByText('Invitation emailed to bob@example.net.').waitFor()
    const link = String(await made.getByLabel('Invitation link', { exact: true }).textContent())

    // It arrived, with the same link, which opens the invitation.
    await waitFor(() => mx.received.some((m) => m.to.includes('bob@example.net')), 'the invitation at the MX')
    const mail = await simpleParser(mx.received.find((m) => m.to.includes('bob@example.net'))!.raw)
    expect(mail.text).toContain(link)
    const emailed = new URL(/https?:\/\/\S+\/console\/invitation\?token=\S+/.exec(mail.text ?? '')![0])
    const invitee = await w.open('desktop', `${emailed.pathname}${emailed.search}`)
    await invitee.getByRole('heading', { name: 'Join Shop' }).waitFor()
    await invitee.getByLabel('Choose a password').fill(PASSWORD)
    await invitee.getByRole('button', { name: 'Accept invitation' }).click()
    await invitee.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    await invitee.context().close()
    await page.getByRole('button', { name: 'Done' }).click()

    // example.org has no mail server: the invitation is made, the page says why it was not sent.
    await invitations.getByLabel('Email address').fill('carol@example.org')
    await invitations.getByRole('button', { name: 'Create invitation' }).click()
    const unsent = page.getByRole('region', { name: 'Invitation for carol@example.org' })
    const why = unsent.getByRole('alert')
    await why.waitFor()
    expect(String(await why.textContent())).toMatch(/Could not email it: .*example\.org.*\. Copy the link and send it yourself/)
    await unsent.getByRole('button', { name: 'Copy invitation link' }).waitFor()
    expect(String(await unsent.getByLabel('Invitation link', { exact: true }).textContent())).toContain('/console/invitation?token=')
    await screenshot(page, 'settings-invitation-unsent')
    await page.context().close()
    expect(w.problems).toEqual([])
  }, 60_000)

  for (const scheme of ['light', 'dark'] as const) {
    for (const width of ['desktop', 'phone'] as const satisfies Width[]) {
      test(`the new-project dialog in the ${scheme} scheme at ${width} width: no axe violation, a screenshot`, async () => {
        const page = await w.signedInAt(width, '/console/', 'owner@example.com', { colorScheme: scheme })
        await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' })
        await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
        if (width === 'phone') await page.getByRole('button', { name: 'Menu' }).click()
        await page.getByRole('button', { name: 'New project' }).click()
        const dialog = page.getByRole('dialog', { name: 'New project' })
        await dialog.getByLabel('Project name').fill('Marketing')
        await screenshot(page, 'projects-new')
        expect(await axeViolations(page)).toEqual([])
        await dialog.getByRole('button', { name: 'Cancel' }).click()
        await dialog.waitFor({ state: 'detached' })
        await page.context().close()
        expect(w.problems).toEqual([])
      }, 60_000)
    }
  }

  test('on a phone, switching to a project made from the drawer closes the drawer, as a link does', async () => {
    const page = await w.signedInAt('phone', '/console/', 'owner@example.com')
    await page.getByRole('button', { name: 'Menu', exact: true }).click()
    await page.getByRole('button', { name: 'New project' }).click()
    const dialog = page.getByRole('dialog', { name: 'New project' })
    await dialog.getByLabel('Project name').fill('Pocket')
    await dialog.getByRole('button', { name: 'Create project' }).click()
    const ready = page.getByRole('dialog', { name: 'Pocket is ready' })
    await ready.getByRole('button', { name: 'Switch to Pocket' }).click()
    await ready.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Menu', exact: true }).waitFor()
    expect(await page.getByRole('button', { name: 'Menu', exact: true }).getAttribute('aria-expanded')).toBe('false')
    await page.context().close()
    expect(w.problems).toEqual([])
  })
})
