// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { browserOf, makeAccount, PASSWORD, signIn, type Browser } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'

/*
 * The instance owner (the server's first account, or one the CLI makes so) sees every project,
 * those made later with the CLI too, opens any as its owner and adds members to any. Projects are
 * made and renamed through the account API the console uses, with their roles.
 */

let t: TestApp
let operator: Browser
let plain: Browser
let cliProject: { id: number; name: string }
let plainProject: { id: number }

const flags = () => ['--data-dir', t.dataDir, ...t.databaseFlags, '--json']
const projectsOf = async (who: Browser) => (await t.request('GET', '/api/v1/account/projects', { headers: who.headers() })).body as any[]
const rename = (who: Browser, projectId: number, name: unknown) => t.request('PATCH', '/api/v1/project', { headers: who.headers({ project: projectId }), body: { name } })

beforeAll(async () => {
  t = await createTestApp()
  await makeAccount(t, 'operator@example.com')
  await makeAccount(t, 'plain@example.com')
  operator = await signIn(t, 'operator@example.com')
  plain = await signIn(t, 'plain@example.com')
  // Made with the CLI after the accounts: nobody is its member.
  cliProject = await t.project('Made with the CLI later')
  plainProject = (await t.request('POST', '/api/v1/account/projects', { headers: plain.headers(), body: { name: 'Plain shop' } })).body
})

afterAll(() => t.close())

describe('the instance owner', () => {
  test('is the first account, and says so; the second is not', async () => {
    const session = async (who: Browser) => (await t.request('GET', '/api/v1/auth/session', { headers: who.headers() })).body.account
    expect(await session(operator)).toMatchObject({ email: 'operator@example.com', instanceOwner: true })
    expect(await session(plain)).toMatchObject({ email: 'plain@example.com', instanceOwner: false })
  })

  test('sees every project, a CLI-made one and another account\'s too, as owner; a plain account sees its own only', async () => {
    const mine = await projectsOf(operator)
    expect(mine).toContainEqual({ id: cliProject.id, name: 'Made with the CLI later', disabled: false, sandbox: false, role: 'owner', member: false })
    expect(mine).toContainEqual({ id: plainProject.id, name: 'Plain shop', disabled: false, sandbox: false, role: 'owner', member: false })
    expect(await projectsOf(plain)).toEqual([{ id: plainProject.id, name: 'Plain shop', disabled: false, sandbox: false, role: 'owner', member: true }])
  })

  test('opens any project; a plain account is refused one it is no member of', async () => {
    const opened = await t.request('GET', '/api/v1/project', { headers: operator.headers({ project: cliProject.id }) })
    expect(opened.status).toBe(200)
    expect(opened.body).toMatchObject({ id: cliProject.id, role: 'owner' })
    const refused = await t.request('GET', '/api/v1/project', { headers: plain.headers({ project: cliProject.id }) })
    expect(refused.status).toBe(403)
    expect((await t.request('GET', '/contacts', { headers: plain.headers({ project: cliProject.id }) })).status).toBe(403)
    // A project that does not exist is no more open to it than to anyone.
    expect((await t.request('GET', '/api/v1/project', { headers: operator.headers({ project: 999_999 }) })).status).toBe(403)
  })

  test('adds a member to a CLI-made project, who then sees it with that role', async () => {
    const invited = await t.request('POST', '/api/v1/project/invitations', { headers: operator.headers({ project: cliProject.id }), body: { email: 'newcomer@example.com', role: 'member' } })
    expect(invited.status).toBe(201)
    const token = new URL(invited.body.link).searchParams.get('token')!
    const accepted = await t.request('POST', '/api/v1/invitations/accept', { body: { token, password: PASSWORD } })
    expect(accepted.status).toBe(200)
    const newcomer = browserOf(accepted)
    expect(await projectsOf(newcomer)).toEqual([{ id: cliProject.id, name: 'Made with the CLI later', disabled: false, sandbox: false, role: 'member', member: true }])
  })
})

describe('projects through the account API', () => {
  test('create: the creator owns it; a bad name is refused with a sentence', async () => {
    const made = await t.request('POST', '/api/v1/account/projects', { headers: plain.headers(), body: { name: '  Second shop  ' } })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ name: 'Second shop', role: 'owner' })
    const blank = await t.request('POST', '/api/v1/account/projects', { headers: plain.headers(), body: { name: '   ' } })
    expect(blank.status).toBe(422)
    expect(blank.body.errors?.[0] ?? blank.body).toMatchObject({ field: 'name' })
  })

  test('rename: the project owner and the instance owner may; the new name is listed', async () => {
    expect((await rename(plain, plainProject.id, 'Plain shop, renamed')).status).toBe(200)
    expect((await rename(operator, cliProject.id, 'Operator named it')).status).toBe(200)
    expect((await projectsOf(operator)).find((p) => p.id === cliProject.id).name).toBe('Operator named it')
    expect((await projectsOf(plain)).find((p) => p.id === plainProject.id).name).toBe('Plain shop, renamed')
  })

  test('rename: an admin may, a member or a viewer may not, a stranger is refused, and a bad name changes nothing', async () => {
    const people: Record<string, Browser> = {}
    for (const role of ['admin', 'member', 'viewer']) {
      const invited = await t.request('POST', '/api/v1/project/invitations', { headers: plain.headers({ project: plainProject.id }), body: { email: `${role}@example.com`, role } })
      const token = new URL(invited.body.link).searchParams.get('token')!
      people[role] = browserOf(await t.request('POST', '/api/v1/invitations/accept', { body: { token, password: PASSWORD } }))
    }
    expect((await rename(people.admin!, plainProject.id, 'Admin named it')).status).toBe(200)
    for (const role of ['member', 'viewer']) {
      const refused = await rename(people[role]!, plainProject.id, `${role} named it`)
      expect(refused.status).toBe(403)
      expect(refused.body.message).toBe(`Your role in this project (${role}) cannot change the project's settings`)
    }
    const stranger = await makeAccount(t, 'stranger@example.com').then(() => signIn(t, 'stranger@example.com'))
    expect((await rename(stranger, plainProject.id, 'Stranger named it')).status).toBe(403)
    for (const name of ['', '   ', 'x'.repeat(101), 42]) expect((await rename(plain, plainProject.id, name)).status).toBe(422)
    expect((await t.request('GET', '/api/v1/project', { headers: plain.headers({ project: plainProject.id }) })).body.name).toBe('Admin named it')
  })
})

describe('mailstead user', () => {
  test('create --instance-owner makes one; set-instance-owner takes it away, never from the last', async () => {
    const made = await cli(['user', 'create', 'deputy@example.com', '--instance-owner', ...flags()])
    expect(made.code).toBe(0)
    expect(JSON.parse(made.out)).toMatchObject({ email: 'deputy@example.com', instanceOwner: true })
    const listed = JSON.parse((await cli(['user', 'list', ...flags()])).out) as any[]
    expect(listed.filter((a) => a.instanceOwner).map((a) => a.email).sort()).toEqual(['deputy@example.com', 'operator@example.com'])

    const off = await cli(['user', 'set-instance-owner', 'deputy@example.com', 'off', ...flags()])
    expect(JSON.parse(off.out)).toMatchObject({ instanceOwner: false })
    const last = await cli(['user', 'set-instance-owner', 'operator@example.com', 'off', ...flags()])
    expect(last.code).not.toBe(0)
    expect(last.err).toContain('The server keeps at least one instance owner')

    const on = await cli(['user', 'set-instance-owner', 'plain@example.com', 'on', ...flags()])
    expect(JSON.parse(on.out)).toMatchObject({ instanceOwner: true })
    // At its next request: the session reads the account each time.
    expect((await projectsOf(plain)).map((p) => p.id)).toContain(cliProject.id)
  })
})
