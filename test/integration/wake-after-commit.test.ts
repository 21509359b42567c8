// @database
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { addContacts } from '../helpers/campaigns.ts'
import { queuedId, relaySession, sendMessage } from '../helpers/relay-client.ts'
import { createHook, startHookServer, type HookServer } from '../helpers/webhooks.ts'
import { until } from '../helpers/until.ts'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * Wake-ups after commit through the writer's one hook (src/db/writer.ts, rowsWait): a write that
 * makes rows of a work table wait wakes the table's loop once it committed, whichever path made it,
 * before its caller is answered, with no call of the caller's own. The loops are spied on where the
 * hook reaches them (the app's loop objects), and only the wakes whose stack runs through the writer
 * are counted: on PostgreSQL the process also hears its own inserts announced (NOTIFY, even an
 * insert of no row), and the loops' poll timers call the functions themselves.
 */

let w: World
let hooks: HookServer
let relayPort: number

beforeAll(async () => {
  hooks = startHookServer()
  w = await createWorld({ started: true, settings: { 'relay-port': '0', 'webhook-allow-private-targets': 'true' } })
  relayPort = w.t.app.listeners()!.relay.port!
})

afterAll(async () => {
  await w.close()
  hooks.stop()
})

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })

/**
 * The wakes of a loop's method that the writer's hook made since the spy was set (their stack
 * runs through src/db/writer.ts), each with the projects it named; the call goes on to the loop.
 */
function spied<T extends object>(loop: T, method: keyof T & string) {
  const target = loop as Record<string, unknown>
  const original = target[method] as (...args: unknown[]) => unknown
  const calls: unknown[][] = []
  target[method] = (...args: unknown[]) => {
    if (new Error().stack?.includes('src/db/writer.ts')) calls.push(args)
    return original.apply(loop, args)
  }
  return {
    count: () => calls.length,
    projects: () => calls.map((args) => (args[0] instanceof Set ? [...(args[0] as Set<number>)] : null)),
    restore: () => void (target[method] = original),
  }
}

let deliveries: ReturnType<typeof spied>
beforeEach(() => {
  deliveries?.restore()
  deliveries = spied(w.t.app.deliveries, 'queued')
})

const FROM = 'Ada <ada@sender.example.com>'

describe('deliveries', () => {
  test('a send through HTTP wakes the delivery loop for its project before it is answered, and the mail leaves', async () => {
    const sent = await api('POST', '/api/v1/emails', { from: FROM, to: 'http@example.net', subject: 'Now', text: 'x' })
    expect(sent.status).toBe(200)
    expect(deliveries.projects()).toEqual([[w.projectId]])
    expect(await until(async () => w.mx.received.filter((m) => m.to.includes('http@example.net')).length, (n) => n === 1)).toBe(1)
  })

  test('a send scheduled for later wakes no one: its time is found by the poll', async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString()
    const sent = await api('POST', '/api/v1/emails', { from: FROM, to: 'later@example.net', subject: 'Later', text: 'x', scheduledAt: later })
    expect(sent.status).toBe(200)
    expect(deliveries.projects()).toEqual([])
    // Moved to now, it is due: the move wakes the loop.
    const moved = await api('PATCH', `/api/v1/emails/${sent.body.emailId}`, { scheduledAt: new Date().toISOString() })
    expect(moved.status).toBe(200)
    expect(deliveries.projects()).toEqual([[w.projectId]])
  })

  test('a message through the SMTP relay wakes the delivery loop once queued, with no call of the relay\'s own', async () => {
    const socket = await relaySession(relayPort, w.key)
    try {
      const reply = await sendMessage(socket, 'ada@sender.example.com', ['relayed@example.net'], 'From: ada@sender.example.com\r\nTo: relayed@example.net\r\nSubject: Relayed\r\n\r\nHello\r\n')
      expect(queuedId(reply)).toBeDefined()
    } finally {
      socket.close()
    }
    expect(deliveries.projects()).toEqual([[w.projectId]])
    expect(await until(async () => w.mx.received.filter((m) => m.to.includes('relayed@example.net')).length, (n) => n === 1)).toBe(1)
  })

  test('a retry of deferred deliveries through the queue API wakes the loop; one that retries nothing does not', async () => {
    expect((await api('POST', '/api/v1/queue/retry', {})).body).toEqual({ retried: 0 })
    expect(deliveries.projects()).toEqual([])
    const sent = await api('POST', '/api/v1/emails', { from: FROM, to: 'deferred@example.net', subject: 'Deferred', text: 'x', scheduledAt: new Date(Date.now() + 3_600_000).toISOString() })
    await w.t.app.db.updateTable('deliveries').set({ state: 'deferred' }).where('email_id', '=', sent.body.emailId).execute()
    expect((await api('POST', '/api/v1/queue/retry', {})).body).toEqual({ retried: 1 })
    expect(deliveries.projects()).toEqual([[w.projectId]])
  })
})

describe('campaigns', () => {
  test('sending a campaign wakes the sender; the batches it hands to the queue wake the delivery loop', async () => {
    const sender = spied(w.t.app.campaigns, 'wake')
    try {
      await addContacts(w, ['fan1@example.net', 'fan2@example.net'])
      const created = await api('POST', '/campaigns', { name: 'News', subject: 'News', body: '<p>Hi {{email}}</p>', from: 'news@sender.example.com', audienceType: 'ALL' })
      expect(created.status).toBe(201)
      expect(sender.count()).toBe(0)
      const id = created.body.data.id
      expect((await api('POST', `/campaigns/${id}/send`, {})).status).toBe(200)
      expect(sender.count()).toBe(1)
      // The started sender hands the campaign to the queue on its own; each batch wakes the delivery loop.
      const sent = await until(async () => (await api('GET', `/campaigns/${id}`)).body.data.status, (status) => status === 'SENT')
      expect(sent).toBe('SENT')
      expect(deliveries.projects()).toContainEqual([w.projectId])
      await until(async () => w.mx.received.filter((m) => m.to[0]!.startsWith('fan')).length, (n) => n === 2)
    } finally {
      sender.restore()
    }
  })

  test('a campaign scheduled for later wakes no one; resumed once its time has come, it wakes the sender', async () => {
    const sender = spied(w.t.app.campaigns, 'wake')
    try {
      await addContacts(w, ['held@example.net'])
      const created = await api('POST', '/campaigns', { name: 'Held', subject: 'Held', body: '<p>Hi</p>', from: 'news@sender.example.com', audienceType: 'ALL' })
      const id = created.body.data.id
      // Scheduled for later, then paused: the sender is not woken (the poll finds a campaign whose time came).
      const later = new Date(Date.now() + 3_600_000).toISOString()
      expect((await api('POST', `/campaigns/${id}/send`, { scheduledFor: later })).status).toBe(200)
      expect((await api('POST', `/campaigns/${id}/pause`)).status).toBe(200)
      expect(sender.count()).toBe(0)
      await w.t.app.db.updateTable('campaigns').set({ scheduled_at: Date.now() - 1000 }).where('id', '=', id).execute()
      expect((await api('POST', `/campaigns/${id}/resume`)).status).toBe(200)
      expect(sender.count()).toBe(1)
    } finally {
      sender.restore()
    }
  })
})

describe('contact imports', () => {
  test('an upload wakes the import runner, which has no poll: the import completes with no one else asking', async () => {
    const runner = spied(w.t.app.imports, 'queued')
    try {
      const answer = await w.t.app.handle(
        new Request('http://localhost/contacts/import', { method: 'POST', headers: { authorization: `Bearer ${w.key}`, 'content-type': 'text/csv' }, body: 'email\nimported@example.org\n' }),
      )
      expect(answer.status).toBe(202)
      expect(runner.count()).toBeGreaterThanOrEqual(1)
      const { id } = (await answer.json()) as { id: string }
      const status = await until(async () => (await api('GET', `/contacts/import/${id}`)).body.status, (s) => s === 'COMPLETED')
      expect(status).toBe('COMPLETED')
    } finally {
      runner.restore()
    }
  })
})

describe('workflows and webhooks', () => {
  test('a MANUAL workflow triggered wakes the workflow runner when contacts entered, not when none did', async () => {
    const runner = spied(w.t.app.workflows, 'wake')
    try {
      const [contact] = await addContacts(w, ['flow@example.net'])
      const flow = await api('POST', '/workflows', { name: 'Flow', enabled: true, triggerType: 'MANUAL', steps: [{ id: 'mail', type: 'SEND_EMAIL', config: { subject: 'Flow', body: '<p>x</p>', from: FROM } }] })
      expect(flow.status).toBeLessThan(300)
      const before = runner.count()
      expect((await api('POST', `/workflows/${flow.body.id}/trigger`, { contactIds: [contact!.id] })).body).toEqual({ entered: 1, skipped: 0 })
      expect(runner.count()).toBe(before + 1)
      // Its SEND_EMAIL step queues the email in the runner's own write: that wakes the delivery loop too.
      await until(async () => w.mx.received.filter((m) => m.to.includes('flow@example.net')).length, (n) => n === 1)
      expect(deliveries.projects()).toContainEqual([w.projectId])
      // Triggered again, the contact does not enter (no re-entry): nothing waits, no one is woken.
      const after = runner.count()
      expect((await api('POST', `/workflows/${flow.body.id}/trigger`, { contactIds: [contact!.id] })).body).toEqual({ entered: 0, skipped: 1 })
      expect(runner.count()).toBe(after)
    } finally {
      runner.restore()
    }
  })

  test('enabling a webhook wakes the dispatcher for what waited while it was disabled; other changes do not', async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/fail/enabled`, ['contact.created'])
    const [contact] = await addContacts(w, ['waited@example.net'])
    // Its first call failed: the delivery waits for a retry, then for the webhook while it is disabled.
    const failed = () => w.t.app.db.selectFrom('webhook_deliveries').select(['attempts', 'claimed_by']).where('webhook_id', '=', hook.id).executeTakeFirst()
    expect(await until(failed, (row) => row?.attempts === 1 && row.claimed_by === null)).toMatchObject({ attempts: 1 })
    expect((await api('PATCH', `/webhooks/${hook.id}`, { enabled: false })).status).toBe(200)
    const dispatcher = spied(w.t.app.webhooks, 'wake')
    try {
      expect((await api('PATCH', `/webhooks/${hook.id}`, { url: `${hooks.base}/ok/enabled` })).status).toBe(200)
      expect(dispatcher.count()).toBe(0)
      expect((await api('PATCH', `/webhooks/${hook.id}`, { enabled: true })).status).toBe(200)
      expect(dispatcher.count()).toBe(1)
      const [call] = await until(async () => hooks.to('/ok/enabled'), (calls) => calls.length === 1)
      expect(call?.payload.data.email).toBe(contact!.email)
    } finally {
      dispatcher.restore()
    }
  })
})
