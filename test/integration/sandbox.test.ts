// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { sandboxDkimRecord } from '../../src/core/projects/sandbox.ts'
import { signIn, makeAccount, type Browser } from '../helpers/accounts.ts'
import { cli } from '../helpers/cli.ts'
import { ManualClock } from '../helpers/clock.ts'
import { createHook, startHookServer, type HookServer } from '../helpers/webhooks.ts'
import { createWorld, type World } from '../helpers/world.ts'

const SECRET = 'test-secret-test-secret-test-secret'
const MINUTE = 60_000
const clock = new ManualClock(Date.parse('2026-11-27T09:00:00Z'))
let w: World
let hooks: HookServer
let sandbox: { id: number; secretKey: string }

beforeAll(async () => {
  // The guardrails judge from the first message (1000 by default), so that a sandbox's rates would be over if they were judged.
  w = await createWorld({ clock, settings: { 'webhook-allow-private-targets': 'true', 'guardrail-min-deliveries': '1' } })
  hooks = startHookServer()
  // Through the CLI, as the README's quick start does.
  const made = await cli(['project', 'create', '--name', 'Try it', '--sandbox', '--json', ...cliData()])
  expect(made.code).toBe(0)
  sandbox = JSON.parse(made.out)
})

afterAll(async () => {
  await w.close()
  hooks.stop()
})

/** The CLI's flags for the test app's database. */
const cliData = () => ['--data-dir', w.t.dataDir, ...w.t.databaseFlags, '--secret', SECRET]
const api = (method: string, path: string, body?: unknown, key = sandbox.secretKey) => w.t.request(method, path, { key, body })
let owner: Browser | undefined
/** The first account, which owns the projects made before it: a person, who may switch a sandbox (a key may not). */
async function asOwner(): Promise<Browser> {
  if (!owner) {
    await makeAccount(w.t, 'owner@example.org')
    owner = await signIn(w.t, 'owner@example.org')
  }
  return owner
}
const switchSandbox = async (projectId: number, on: boolean) =>
  w.t.request('PATCH', '/api/v1/project', { headers: (await asOwner()).headers({ project: projectId }), body: { sandbox: on } })
const send = async (to: string, from = 'app@unverified.example') => {
  const answer = await api('POST', '/api/v1/emails', { from, to, subject: 'Hello', html: '<p>Hello <a href="https://example.org/">there</a></p>' })
  expect(answer.status).toBe(200)
  return answer.body.emailId as string
}
const emailOf = async (id: string) => (await api('GET', `/api/v1/emails/${id}`)).body
const statusesOf = async (id: string) => ((await emailOf(id)).emailEvents as Array<{ status: string }>).map((e) => e.status)
/** Every webhook call's type and recipient for one email, in order. */
const callsFor = (emailId: string) => hooks.calls.filter((c) => c.payload.data?.emailId === emailId).map((c) => c.payload.type)
/** Delivers what is due and calls the webhooks. */
const settle = async () => {
  await w.deliver()
  await w.t.app.webhooks.drain()
}

describe('a sandbox project', () => {
  test('is made by the CLI flag, and says so on the project API', async () => {
    // Copied: toMatchObject with an asymmetric matcher writes the matcher into what it was given (Bun 1.4).
    expect({ ...sandbox }).toMatchObject({ name: 'Try it', sandbox: true })
    expect(sandbox.secretKey).toMatch(/^sk_/)
    expect((await api('GET', '/api/v1/project')).body).toMatchObject({ id: sandbox.id, sandbox: true })
    expect((await api('GET', '/api/v1/project', undefined, w.key)).body.sandbox).toBe(false)
    const listed = await cli(['project', 'list', ...cliData()])
    expect(listed.out).toMatch(/Try it\s+enabled, sandbox/)
  })

  test("each outcome arrives as a real one does, with its events and webhook calls, and nothing reaches any MX nor DNS", async () => {
    await createHook(w, sandbox.secretKey, `${hooks.base}/sandbox`)
    const queriesBefore = w.dns.queries.length
    const ids = {
      delivered: await send('jane@example.net'),
      bounce: await send('bounce@example.net'),
      complaint: await send('complaint@example.net'),
      defer: await send('defer@example.net'),
      suppressed: await send('suppressed@example.net'),
    }
    await settle()
    expect(await statusesOf(ids.delivered)).toEqual(['QUEUED', 'SENT', 'DELIVERED'])
    expect(await statusesOf(ids.bounce)).toEqual(['QUEUED', 'SENT', 'BOUNCED'])
    expect(await statusesOf(ids.complaint)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'COMPLAINED'])
    expect(await statusesOf(ids.defer)).toEqual(['QUEUED', 'SENT', 'DELIVERY_DELAYED'])
    expect(await statusesOf(ids.suppressed)).toEqual(['QUEUED', 'SUPPRESSED'])
    clock.advance(MINUTE)
    await settle()
    expect(await statusesOf(ids.defer)).toEqual(['QUEUED', 'SENT', 'DELIVERY_DELAYED', 'DELIVERED'])

    expect(callsFor(ids.delivered)).toEqual(['email.queued', 'email.sent', 'email.delivered'])
    expect(callsFor(ids.bounce)).toEqual(['email.queued', 'email.sent', 'email.bounced'])
    expect(callsFor(ids.complaint)).toEqual(['email.queued', 'email.sent', 'email.delivered', 'email.complained'])
    expect(callsFor(ids.defer)).toEqual(['email.queued', 'email.sent', 'email.delivery_delayed', 'email.delivered'])
    expect(callsFor(ids.suppressed)).toEqual(['email.queued', 'email.suppressed'])
    // The complaint came as a feedback report to the return path, judged and kept like a real one.
    const reports = await w.t.app.db.selectFrom('received_reports').select(['kind', 'outcome', 'rcpt_to']).execute()
    expect(reports).toEqual([{ kind: 'arf', outcome: 'applied', rcpt_to: expect.stringContaining('@sandbox.mailstead.invalid') }])
    const complained = hooks.calls.find((c) => c.payload.type === 'email.complained')!
    expect(complained.payload.data).toMatchObject({ emailId: ids.complaint, recipient: 'complaint@example.net', details: { feedbackType: 'abuse', source: 'arf' } })
    const bounced = hooks.calls.find((c) => c.payload.type === 'email.bounced' && c.payload.data.emailId === ids.bounce)!
    expect(bounced.payload.data).toMatchObject({ recipient: 'bounce@example.net', details: { smtpCode: 550, hard: true } })

    // As after real ones: the hard bounce and the complaint put their addresses on the list.
    const listed = (await api('GET', '/api/v1/suppressions')).body
    expect(JSON.stringify(listed)).toContain('bounce@example.net')
    expect(JSON.stringify(listed)).toContain('complaint@example.net')
    expect(w.mx.received).toHaveLength(0)
    expect(w.dns.queries.slice(queriesBefore)).toEqual([])
  })

  test('its mail is stored signed with the sandbox key, d= the sender domain, and the signature verifies', async () => {
    const id = await send('ada@example.net', 'Ada <ada@news.anywhere.example>')
    await settle()
    const raw = await w.t.request('GET', `/api/v1/emails/${id}/raw`, { key: sandbox.secretKey })
    const message = Buffer.from(typeof raw.body === 'string' ? raw.body : JSON.stringify(raw.body))
    expect(message.toString()).toMatch(/^DKIM-Signature: .*d=news\.anywhere\.example/s)
    expect(message.toString()).toContain('s=sandbox')
    const record = await sandboxDkimRecord(w.t.app.db, sandbox.id, 'news.anywhere.example')
    expect(record?.name).toBe('sandbox._domainkey.news.anywhere.example')
    const verified = await dkimVerify(message, {
      resolver: async (name: string) => {
        if (name !== record!.name) throw Object.assign(new Error('no such name'), { code: 'ENOTFOUND' })
        return [[record!.value]]
      },
    } as never)
    expect(verified.results.map((r: any) => r.status.result)).toEqual(['pass'])
    expect(w.mx.received).toHaveLength(0)
  })
})

describe('bad input', () => {
  test("a real project's key still needs a verified domain, and its mail goes to the MX, never to the simulator", async () => {
    const refused = await api('POST', '/api/v1/emails', { from: 'app@unverified.example', to: 'jane@example.net', subject: 'Hi', html: '<p>Hi</p>' }, w.key)
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('DOMAIN_NOT_VERIFIED')
    const real = await api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to: 'bounce@example.net', subject: 'Hi', html: '<p>Hi</p>' }, w.key)
    await settle()
    expect(w.mx.received.map((m) => m.to)).toEqual([['bounce@example.net']])
    const events = ((await api('GET', `/api/v1/emails/${real.body.emailId}`, undefined, w.key)).body.emailEvents as any[]).map((e) => e.status)
    expect(events).toEqual(['QUEUED', 'SENT', 'DELIVERED'])
  })

  test('a sandbox email stays simulated when its project is switched to real sending: it never reaches the MX', async () => {
    const id = await send('defer-2@example.net', 'ada@sender.example.com')
    await settle()
    expect(await statusesOf(id)).toEqual(['QUEUED', 'SENT', 'DELIVERY_DELAYED'])
    // Its sender is not a verified domain of this project: the switch is refused while it waits.
    const cliRefused = await cli(['project', 'set-sandbox', String(sandbox.id), 'off', ...cliData()])
    expect(cliRefused.code).not.toBe(0)
    expect(cliRefused.err).toContain('sandbox mail in flight')
    expect((await api('GET', '/api/v1/project')).body.sandbox).toBe(true)
    clock.advance(MINUTE)
    await settle()
    expect(await statusesOf(id)).toEqual(['QUEUED', 'SENT', 'DELIVERY_DELAYED', 'DELIVERED'])
    expect(w.mx.received).toHaveLength(1)
  })

  test('switched off once its mail is settled, the project needs verified domains again; switched on, it sends from any', async () => {
    const off = await cli(['project', 'set-sandbox', String(sandbox.id), 'off', '--json', ...cliData()])
    expect(off.code).toBe(0)
    expect((await api('GET', '/api/v1/project')).body.sandbox).toBe(false)
    const refused = await api('POST', '/api/v1/emails', { from: 'app@unverified.example', to: 'jane@example.net', subject: 'Hi', html: '<p>Hi</p>' })
    expect(refused.body.code).toBe('DOMAIN_NOT_VERIFIED')
    const on = await cli(['project', 'set-sandbox', String(sandbox.id), 'on', ...cliData()])
    expect(on.out).toBe(`Project ${sandbox.id} (Try it) is a sandbox: its mail never leaves the server`)
    expect((await api('GET', '/api/v1/project')).body.sandbox).toBe(true)
    expect(await send('jane@example.net')).toBeString()
    await settle()
    expect(w.mx.received).toHaveLength(1)
  })

  test('the account API makes sandbox projects and lists them as such; sandbox must be a boolean', async () => {
    const browser = await asOwner()
    const asBrowser = (method: string, path: string, body?: unknown) => w.t.request(method, path, { headers: browser.headers(), body })
    const made = await asBrowser('POST', '/api/v1/account/projects', { name: 'Play', sandbox: true })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ name: 'Play', sandbox: true, role: 'owner' })
    const listed = await asBrowser('GET', '/api/v1/account/projects')
    const byName = new Map((listed.body as Array<{ name: string; sandbox: boolean }>).map((p) => [p.name, p.sandbox]))
    expect(byName.get('Play')).toBe(true)
    expect(byName.get('Sender')).toBe(false)
    const bad = await asBrowser('POST', '/api/v1/account/projects', { name: 'Bad', sandbox: 'yes' })
    expect(bad.status).toBe(422)
    const badPatch = await switchSandbox(sandbox.id, 'no' as never)
    expect(badPatch.status).toBe(422)
  })

  test("no API key switches its project in or out of the sandbox: a sandbox's key, nor a real project's", async () => {
    for (const [key, was] of [[sandbox.secretKey, true], [w.key, false]] as const) {
      const refused = await api('PATCH', '/api/v1/project', { sandbox: !was }, key)
      expect(refused.status).toBe(403)
      expect(refused.body.suggestion).toContain('set-sandbox')
      expect((await api('GET', '/api/v1/project', undefined, key)).body.sandbox).toBe(was)
    }
  })
})

describe('campaigns', () => {
  test('a sandbox campaign from any address goes to its contacts through the simulator: unsubscribe links, outcomes, no MX', async () => {
    const before = w.mx.received.length
    for (const email of ['reader@example.org', 'bounce-news@example.org']) expect((await api('POST', '/contacts', { email, subscribed: true })).status).toBeLessThan(300)
    const body = '<p>Hello {{email}}</p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>'
    const draft = await api('POST', '/campaigns', { name: 'News', subject: 'News', body, from: 'news@anywhere.example', audienceType: 'ALL' })
    expect(draft.status).toBe(201)
    const id = draft.body.data.id as string
    expect((await api('POST', `/campaigns/${id}/send`, {})).status).toBeLessThan(300)
    for (let i = 0; i < 50 && (await api('GET', `/campaigns/${id}`)).body.data.status === 'SENDING'; i++) {
      await w.t.app.campaigns.drain()
      await w.deliver()
    }
    await w.deliver()
    const rows = await w.t.app.db
      .selectFrom('deliveries')
      .innerJoin('campaign_recipients', 'campaign_recipients.email_id', 'deliveries.email_id')
      .select(['deliveries.recipient', 'deliveries.state', 'deliveries.sandbox', 'deliveries.email_id'])
      .where('campaign_recipients.campaign_id', '=', id)
      .orderBy('deliveries.recipient')
      .execute()
    expect(rows.map((r) => [r.recipient, r.state, r.sandbox])).toEqual([
      ['bounce-news@example.org', 'bounced', 1],
      ['reader@example.org', 'delivered', 1],
    ])
    const raw = await w.t.request('GET', `/api/v1/emails/${rows[1]!.email_id}/raw`, { key: sandbox.secretKey })
    expect(String(raw.body)).toMatch(/<mailto:unsubscribe\+[^>]+@sandbox\.mailstead\.invalid\?subject=unsubscribe>/)
    expect(String(raw.body)).toContain('s=sandbox')
    expect(w.mx.received).toHaveLength(before)
  })
})

describe('a project with a verified domain', () => {
  test('switched to the sandbox, its mail from that domain is simulated too, signed with the sandbox key; switched back, it is sent', async () => {
    const before = w.mx.received.length
    const sentBefore = await sentOf()
    expect((await switchSandbox(w.projectId, true)).body.sandbox).toBe(true)
    const simulated = await api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to: 'jane@example.net', subject: 'Hi', html: '<p>Hi</p>' }, w.key)
    // With its mail waiting it may still switch back: the sender's domain is verified.
    expect((await switchSandbox(w.projectId, false)).body.sandbox).toBe(false)
    const real = await api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to: 'jane@example.net', subject: 'Hi', html: '<p>Hi</p>' }, w.key)
    await settle()
    const mxOf = async (id: string) => (await api('GET', `/api/v1/emails/${id}`, undefined, w.key)).body.deliveries[0].mx
    expect(await mxOf(simulated.body.emailId)).toBe('sandbox.mailstead.invalid')
    expect(await mxOf(real.body.emailId)).toBe('mx.example.net')
    expect(w.mx.received).toHaveLength(before + 1)
    // The real one is signed with the domain's own keys, never the sandbox's.
    expect(w.mx.received.at(-1)!.raw.toString()).not.toContain('s=sandbox')
    const simulatedRaw = await w.t.request('GET', `/api/v1/emails/${simulated.body.emailId}/raw`, { key: w.key })
    expect(String(simulatedRaw.body)).toContain('s=sandbox')
    // The project's Overview counts both; its domain's, only the mail sent from that domain for real.
    expect(await sentOf()).toEqual({ project: sentBefore.project + 2, domain: sentBefore.domain + 1 })
  })
})

/** What the real project's Overview says was sent today, in all and from its domain. */
async function sentOf() {
  const total = async (query: string) => (await api('GET', `/api/v1/analytics/email-time-series?days=1${query}`, undefined, w.key)).body.totalCounts.sent as number
  return { project: await total(''), domain: await total(`&domainId=${w.domain.id}`) }
}

describe("a sandbox's Overview", () => {
  test('counts its simulated outcomes, and the guardrails never judge them', async () => {
    // A project of its own, so that the counts are this test's alone.
    const made = await cli(['project', 'create', '--name', 'Overview', '--sandbox', '--json', ...cliData()])
    expect(made.code).toBe(0)
    const { id, secretKey } = JSON.parse(made.out) as { id: number; secretKey: string }
    for (const to of ['jane@example.net', 'bounce@example.net', 'complaint@example.net']) {
      const answer = await api('POST', '/api/v1/emails', { from: 'app@anything.example', to, subject: 'Hello', html: '<p>Hello</p>' }, secretKey)
      expect(answer.status).toBe(200)
    }
    await settle()

    const series = (await api('GET', '/api/v1/analytics/email-time-series?days=1', undefined, secretKey)).body
    expect(series.totalCounts).toEqual({ sent: 3, delivered: 2, deferred: 0, opened: 0, clicked: 0, bounced: 1, complained: 1 })
    const byHour = (await api('GET', '/api/v1/analytics/email-time-series?bucket=hour', undefined, secretKey)).body
    expect(byHour.result.filter((b: { sent: number }) => b.sent > 0)).toEqual([
      { date: '2026-11-27T09:00:00.000Z', sent: 3, delivered: 2, deferred: 0, opened: 0, clicked: 0, bounced: 1, complained: 1 },
    ])
    const reputation = (await api('GET', '/api/v1/analytics/reputation-metrics', undefined, secretKey)).body
    expect(reputation).toMatchObject({ delivered: 2, hardBounced: 1, complained: 1, sent: 3 })
    // Far over both limits (5% and 0.3%), judged from the first message: a real domain would be paused.
    expect(reputation.bounceRate).toBeGreaterThan(5)
    expect(reputation.complaintRate).toBeGreaterThan(0.3)
    const crossings = await w.t.app.guardrails.tick()
    expect(crossings.filter((c) => c.projectId === id)).toEqual([])
    // Another project's Overview does not show them.
    expect((await api('GET', '/api/v1/analytics/email-time-series?days=1', undefined, w.key)).body.totalCounts.bounced).toBe(0)
  })
})
