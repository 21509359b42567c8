// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { browserOf, makeAccount, PASSWORD, signIn, type Browser } from '../helpers/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/*
 * Projects, members and roles through HTTP: the project switcher, invitations by link, the
 * session + X-Project-Id caller on the routes keys use, and what each role may write.
 */

let t: TestApp
let earlier: { id: number }
let owner: Browser
let project: { id: number; secretKey: string }
const people: Record<'admin' | 'member' | 'viewer', Browser> = {} as never

const invite = async (by: Browser, projectId: number, email: string, role: string) => {
  const response = await t.request('POST', '/api/v1/project/invitations', { headers: by.headers({ project: projectId }), body: { email, role } })
  expect(response.status).toBe(201)
  return new URL(response.body.link).searchParams.get('token')!
}

const accept = (token: string, password?: string, headers: Record<string, string> = {}) =>
  t.request('POST', '/api/v1/invitations/accept', { body: { token, ...(password !== undefined && { password }) }, headers })

beforeAll(async () => {
  t = await createTestApp({ 'webhook-allow-private-targets': 'true' })
  earlier = await t.project('Made with the CLI before any account')
  await makeAccount(t, 'owner@example.com')
  owner = await signIn(t, 'owner@example.com')
  const created = await t.request('POST', '/api/v1/account/projects', { headers: owner.headers(), body: { name: 'Shop' } })
  expect(created.status).toBe(201)
  project = created.body
  for (const role of ['admin', 'member', 'viewer'] as const) {
    const accepted = await accept(await invite(owner, project.id, `${role}@example.com`, role), PASSWORD)
    expect(accepted.status).toBe(200)
    people[role] = browserOf(accepted)
  }
})

afterAll(() => t.close())

describe('the project switcher', () => {
  test('lists my projects with my role; the first account owns the projects made before it', async () => {
    const mine = await t.request('GET', '/api/v1/account/projects', { headers: owner.headers() })
    expect(mine.body).toEqual([
      { id: earlier.id, name: 'Made with the CLI before any account', disabled: false, sandbox: false, role: 'owner', member: true },
      { id: project.id, name: 'Shop', disabled: false, sandbox: false, role: 'owner', member: true },
    ])
    const viewer = await t.request('GET', '/api/v1/account/projects', { headers: people.viewer.headers() })
    expect(viewer.body).toEqual([{ id: project.id, name: 'Shop', disabled: false, sandbox: false, role: 'viewer', member: true }])
  })

  test('a created project comes with its first keys, shown once, and they work', async () => {
    expect(project.secretKey).toStartWith('sk_')
    expect((await t.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
  })
})

describe('a session on the routes keys use', () => {
  test('reads and writes with X-Project-Id, like a key', async () => {
    const made = await t.request('POST', '/contacts', { headers: people.member.headers({ project: project.id }), body: { email: 'reader@example.net' } })
    expect(made.status).toBe(201)
    const read = await t.request('GET', '/contacts', { headers: people.viewer.headers({ project: project.id }) })
    expect(read.status).toBe(200)
    expect(JSON.stringify(read.body)).toContain('reader@example.net')
    const mine = await t.request('GET', '/api/v1/project', { headers: people.viewer.headers({ project: project.id }) })
    expect(mine.body).toMatchObject({ id: project.id, name: 'Shop', role: 'viewer' })
  })

  test('another project, one that does not exist, or none named: refused, and nothing read', async () => {
    const other = await t.request('GET', '/contacts', { headers: people.admin.headers({ project: earlier.id }) })
    expect(other.status).toBe(403)
    expect(other.body).toMatchObject({ code: 'FORBIDDEN', message: `You are not a member of project ${earlier.id}` })
    const write = await t.request('POST', '/contacts', { headers: people.admin.headers({ project: earlier.id }), body: { email: 'sneak@example.net' } })
    expect(write.status).toBe(403)
    expect((await t.request('GET', '/contacts', { headers: owner.headers({ project: earlier.id }) })).body.data ?? []).toEqual([])
    expect((await t.request('GET', '/contacts', { headers: people.admin.headers({ project: 999999 }) })).status).toBe(403)
    const none = await t.request('GET', '/contacts', { headers: people.admin.headers() })
    expect(none.status).toBe(400)
    expect((await t.request('GET', '/contacts', { headers: people.admin.headers({ project: '1 OR 1=1' }) })).status).toBe(400)
  })

  test('a write without the CSRF token or from another origin is refused and changes nothing', async () => {
    const noToken = await t.request('POST', '/contacts', { headers: people.member.headers({ project: project.id, csrf: false }), body: { email: 'csrf@example.net' } })
    expect(noToken.status).toBe(403)
    expect(noToken.body.code).toBe('CSRF_REJECTED')
    const crossSite = await t.request('POST', '/contacts', { headers: { ...people.member.headers({ project: project.id }), origin: 'https://evil.example' }, body: { email: 'csrf@example.net' } })
    expect(crossSite.status).toBe(403)
    const list = await t.request('GET', '/contacts', { key: project.secretKey })
    expect(JSON.stringify(list.body)).not.toContain('csrf@example.net')
  })

  test('a key goes on as before, ignoring X-Project-Id, and acts as admin', async () => {
    const read = await t.request('GET', '/contacts', { key: project.secretKey, headers: { 'x-project-id': String(earlier.id) } })
    expect(read.status).toBe(200)
    expect(JSON.stringify(read.body)).toContain('reader@example.net')
    expect((await t.request('GET', '/api/v1/project', { key: project.secretKey })).body.role).toBe('admin')
    expect((await t.request('POST', '/api/v1/project/invitations', { key: project.secretKey, body: { email: 'x@example.com', role: 'owner' } })).status).toBe(403)
  })

  test('a session is honoured by another process on the same database', async () => {
    const url = t.databaseFlags[1]
    const other = await createTestApp({ 'data-dir': t.dataDir, ...(url && { 'database-url': url }) })
    try {
      const read = await other.request('GET', '/api/v1/project/members', { headers: people.viewer.headers({ project: project.id }) })
      expect(read.status).toBe(200)
      expect(read.body.map((m: { email: string }) => m.email).sort()).toEqual(['admin@example.com', 'member@example.com', 'owner@example.com', 'viewer@example.com'])
    } finally {
      await other.app.stop()
    }
  })
})

/** One write of each kind, as a request that succeeds for a role allowed to make it. */
const WRITES: Array<[string, string, string, (i: number) => unknown]> = [
  ['keys', 'POST', '/api/v1/keys', () => ({ name: 'Tracker', type: 'public' })],
  ['domains', 'POST', '/api/v1/domains', (i) => ({ name: `d${i}.example.com`, region: 'us-east-1' })],
  ['webhooks', 'POST', '/webhooks', () => ({ url: 'http://127.0.0.1:9/hook', events: ['email.sent'] })],
  ['settings', 'PATCH', '/api/v1/project', () => ({ name: 'Shop' })],
  ['sending', 'POST', '/api/v1/emails/00000000-0000-7000-8000-000000000000/cancel', () => undefined],
  ['contacts', 'POST', '/contacts', (i) => ({ email: `c${i}@example.net` })],
  ['members', 'POST', '/api/v1/project/invitations', (i) => ({ email: `i${i}@example.com`, role: 'viewer' })],
  ['delete-data', 'POST', '/contacts/00000000-0000-7000-8000-000000000000/erase', () => undefined],
]

const MAY: Record<string, string[]> = {
  owner: ['keys', 'domains', 'webhooks', 'settings', 'sending', 'contacts', 'members', 'delete-data'],
  admin: ['keys', 'domains', 'webhooks', 'settings', 'sending', 'contacts', 'delete-data'],
  member: ['sending', 'contacts'],
  viewer: [],
}

describe('each role, each kind of write', () => {
  let n = 0
  for (const role of ['owner', 'admin', 'member', 'viewer'] as const) {
    test.each(WRITES)(`${role}: %s`, async (kind, method, path, body) => {
      const browser = role === 'owner' ? owner : people[role]
      const response = await t.request(method, path, { headers: browser.headers({ project: project.id }), body: body(n++) })
      const refusedByRole = response.status === 403 && response.body.code === 'FORBIDDEN'
      expect({ kind, refusedByRole }).toEqual({ kind, refusedByRole: !MAY[role]!.includes(kind) })
      // A write the role may make gets past the check: done, or refused for its own reason (no such email or contact here).
      const missing = kind === 'sending' || kind === 'delete-data'
      if (!refusedByRole) expect(missing ? response.status : response.status < 300).toBe(missing ? 404 : true)
    })
  }

  test('what a viewer was refused changed nothing', async () => {
    const keys = await t.request('GET', '/api/v1/keys', { headers: people.viewer.headers({ project: project.id }) })
    expect(keys.body.filter((k: { type: string }) => k.type === 'public')).toHaveLength(3) // the project's first, the owner's and the admin's
    const invitations = await t.request('GET', '/api/v1/project/invitations', { headers: people.viewer.headers({ project: project.id }) })
    expect(invitations.body).toHaveLength(1)
  })

  test('only an owner deletes the project', async () => {
    const doomed = (await t.request('POST', '/api/v1/account/projects', { headers: owner.headers(), body: { name: 'Doomed' } })).body
    await accept(await invite(owner, doomed.id, 'admin@example.com', 'admin'), undefined, people.admin.headers())
    for (const refused of [people.admin.headers({ project: doomed.id }), { authorization: `Bearer ${doomed.secretKey}` }]) {
      const response = await t.request('DELETE', '/api/v1/project', { headers: refused })
      expect(response.status).toBe(403)
      expect(response.body.message).toContain('cannot delete the project')
    }
    expect((await t.request('DELETE', '/api/v1/project', { headers: owner.headers({ project: doomed.id }) })).status).toBe(200)
    expect((await t.request('GET', '/contacts', { key: doomed.secretKey })).status).toBe(401)
    expect((await t.request('GET', '/api/v1/account/projects', { headers: people.admin.headers() })).body.map((p: { id: number }) => p.id)).toEqual([project.id])
  })
})

describe('settings', () => {
  test("an admin sets the name, default sender and send rate, which may not pass the server's; null goes back to it", async () => {
    const admin = people.admin.headers({ project: project.id })
    const changed = await t.request('PATCH', '/api/v1/project', { headers: admin, body: { name: 'Shop, renamed', defaultSender: 'hello@shop.example', sendRatePerSecond: 5 } })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ name: 'Shop, renamed', defaultSender: 'hello@shop.example', sendRatePerSecond: 5 })
    const tooFast = await t.request('PATCH', '/api/v1/project', { headers: admin, body: { sendRatePerSecond: 10_000_000 } })
    expect(tooFast.body.errors).toMatchObject([{ field: 'sendRatePerSecond', message: expect.stringContaining("must be at most the server's") }])
    for (const sendRatePerSecond of [0, 2.5, 'fast']) {
      const refused = await t.request('PATCH', '/api/v1/project', { headers: admin, body: { sendRatePerSecond } })
      expect(refused.status).toBe(422)
      expect(refused.body.errors.map((e: { field: string }) => e.field)).toContain('sendRatePerSecond')
    }
    expect((await t.request('GET', '/api/v1/project', { headers: admin })).body.sendRatePerSecond).toBe(5)
    const reset = await t.request('PATCH', '/api/v1/project', { headers: admin, body: { name: 'Shop', defaultSender: null, sendRatePerSecond: null } })
    expect(reset.body).toMatchObject({ name: 'Shop', defaultSender: null, sendRatePerSecond: null })
    const member = await t.request('PATCH', '/api/v1/project', { headers: people.member.headers({ project: project.id }), body: { sendRatePerSecond: 1 } })
    expect(member.status).toBe(403)
  })
})

describe('members', () => {
  test('an owner changes roles; the last owner cannot be demoted or removed', async () => {
    const members = (await t.request('GET', '/api/v1/project/members', { headers: owner.headers({ project: project.id }) })).body
    const ownerId = members.find((m: { email: string }) => m.email === 'owner@example.com').accountId
    const demote = await t.request('PATCH', `/api/v1/project/members/${ownerId}`, { headers: owner.headers({ project: project.id }), body: { role: 'admin' } })
    expect(demote.status).toBe(409)
    expect((await t.request('DELETE', `/api/v1/project/members/${ownerId}`, { headers: owner.headers({ project: project.id }) })).status).toBe(409)
    const bad = await t.request('PATCH', `/api/v1/project/members/${people.viewer.accountId}`, { headers: owner.headers({ project: project.id }), body: { role: 'king' } })
    expect(bad.status).toBe(422)
    const promoted = await t.request('PATCH', `/api/v1/project/members/${people.viewer.accountId}`, { headers: owner.headers({ project: project.id }), body: { role: 'member' } })
    expect(promoted.body.role).toBe('member')
    expect((await t.request('POST', '/contacts', { headers: people.viewer.headers({ project: project.id }), body: { email: 'promoted@example.net' } })).status).toBe(201)
    await t.request('PATCH', `/api/v1/project/members/${people.viewer.accountId}`, { headers: owner.headers({ project: project.id }), body: { role: 'viewer' } })
  })
})

describe('invitation links', () => {
  test('used once: a second acceptance is refused and changes nothing', async () => {
    const token = await invite(owner, project.id, 'twice@example.com', 'member')
    const looked = await t.request('POST', '/api/v1/invitations/lookup', { body: { token } })
    expect(looked.body).toMatchObject({ email: 'twice@example.com', role: 'member', projectId: project.id, projectName: 'Shop' })
    expect((await accept(token, PASSWORD)).status).toBe(200)
    const again = await accept(token, 'another password here')
    expect(again.status).toBe(422)
    expect(again.body.errors[0].field).toBe('token')
    const signedIn = await signIn(t, 'twice@example.com')
    const twice = await accept(token, undefined, signedIn.headers())
    expect(twice.status).toBe(422)
    expect((await t.request('POST', '/api/v1/invitations/lookup', { body: { token } })).status).toBe(422)
  })

  test('expired, forged or revoked: refused', async () => {
    const late = await invite(owner, project.id, 'late@example.com', 'admin')
    await t.app.db.updateTable('project_invitations').set({ expires_at: Date.now() - 1 }).where('email', '=', 'late@example.com').execute()
    expect((await accept(late, PASSWORD)).status).toBe(422)
    const forged = late.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'))
    expect((await accept(forged, PASSWORD)).status).toBe(422)
    const revoked = await invite(owner, project.id, 'revoked@example.com', 'admin')
    const [pending] = (await t.request('GET', '/api/v1/project/invitations', { headers: owner.headers({ project: project.id }) })).body.filter((i: { email: string }) => i.email === 'revoked@example.com')
    expect((await t.request('DELETE', `/api/v1/project/invitations/${pending.id}`, { headers: owner.headers({ project: project.id }) })).status).toBe(200)
    expect((await accept(revoked, PASSWORD)).status).toBe(422)
    const accounts = await t.app.db.selectFrom('accounts').select('email').execute()
    expect(accounts.map((a) => a.email)).not.toContain('late@example.com')
    expect(accounts.map((a) => a.email)).not.toContain('revoked@example.com')
  })

  test('for another email: a signed-in account that is not the invitee is refused', async () => {
    const token = await invite(owner, project.id, 'someone@example.com', 'admin')
    const response = await accept(token, undefined, people.member.headers())
    expect(response.status).toBe(403)
    expect((await t.request('POST', '/api/v1/invitations/lookup', { body: { token } })).status).toBe(200)
  })

  test('an existing account that is not signed in is asked to sign in', async () => {
    const token = await invite(owner, earlier.id, 'member@example.com', 'viewer')
    const response = await accept(token, PASSWORD)
    expect(response.status).toBe(409)
  })
})

describe('the role table covers every route', () => {
  test('every documented write of a project route belongs to a named family', async () => {
    const { writeFamilyOf } = await import('../../src/http/permissions.ts')
    const { body } = await t.request('GET', '/swagger/json')
    const outsideProjects = /^\/(api\/v1\/(auth|account|invitations)\/|health)/
    const unlisted = Object.entries(body.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops)
        .map((method) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x') }))
        .filter(({ method, path }) => !outsideProjects.test(path) && writeFamilyOf(method, path)?.listed === false),
    )
    expect(unlisted).toEqual([])
  })
})
