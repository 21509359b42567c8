// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { verifySignature } from '../../src/lib/outbound/signature.ts'
import { ManualClock } from '../helpers/clock.ts'
import { receivedCount } from '../helpers/sending.ts'
import { FROM, runsOf, settle, track, workflow } from '../helpers/workflows.ts'
import { createWorld, type World } from '../helpers/world.ts'

const clock = new ManualClock(Date.parse('2026-11-03T10:00:00Z'))
let w: World
let hook: ReturnType<typeof Bun.serve>
const calls: Array<{ headers: Headers; body: string }> = []
let failNext = 0

beforeAll(async () => {
  w = await createWorld({ clock, settings: { 'webhook-allow-private-targets': 'true' } })
  hook = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      calls.push({ headers: request.headers, body: await request.text() })
      if (failNext > 0) {
        failNext--
        return new Response('busy', { status: 503 })
      }
      return new Response('ok')
    },
  })
})

afterAll(async () => {
  hook.stop(true)
  await w.close()
})

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })
const outcomes = (run: { history: Array<{ stepId: string; outcome: string }> }) => run.history.map((h) => `${h.stepId}:${h.outcome}`)

describe('WEBHOOK steps', () => {
  test('call the endpoint with the contact and event filled in, signed with the secret shown at creation', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'paid' },
      steps: [{ id: 'notify', type: 'WEBHOOK', config: { url: `http://127.0.0.1:${hook.port}/hooks`, method: 'POST', headers: { 'x-team': 'billing' }, body: { who: '{{email}}', amount: '{{event.data.amount}}' } } }],
    })
    await track(w, 'payer@example.net', 'paid', { amount: 30 })
    await settle(w)
    const call = calls.at(-1)!
    expect(JSON.parse(call.body)).toEqual({ who: 'payer@example.net', amount: '30' })
    expect(call.headers.get('x-team')).toBe('billing')
    expect(verifySignature(flow.signingSecret, call.headers, call.body, Date.now())).toBe(true)
    expect(verifySignature(flow.signingSecret, call.headers, call.body.replace('30', '31'), Date.now())).toBe(false)
    expect((await runsOf(w, flow.id))[0]!.state).toBe('COMPLETED')
  })

  test('an endpoint that fails is tried again later, with the same id, and the run fails after the third try', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'refund' },
      steps: [{ id: 'notify', type: 'WEBHOOK', config: { url: `http://127.0.0.1:${hook.port}/hooks`, method: 'POST' } }],
    })
    failNext = 5
    const before = calls.length
    await track(w, 'refund@example.net', 'refund')
    await settle(w)
    clock.advance(60_000)
    await settle(w)
    clock.advance(300_000)
    await settle(w)
    const tries = calls.slice(before)
    expect(tries).toHaveLength(3)
    expect(new Set(tries.map((c) => c.headers.get('x-mailstead-id'))).size).toBe(1)
    const [run] = await runsOf(w, flow.id)
    expect(run!.state).toBe('FAILED')
    expect(outcomes(run!)).toEqual(['notify:retrying', 'notify:retrying', 'notify:failed'])
    failNext = 0
  })
})

test('a webhook to a loopback address is refused unless the server allows private targets', async () => {
  const strict = await createWorld()
  try {
    const answer = await strict.t.request('POST', '/workflows', {
      key: strict.key,
      body: { name: 'x', triggerType: 'EVENT', triggerConfig: { eventName: 'e' }, enabled: true, steps: [{ id: 'h', type: 'WEBHOOK', config: { url: 'http://127.0.0.1:9/x', method: 'POST' } }] },
    })
    if (answer.status === 422) {
      expect(answer.body.message).toContain('127.0.0.1')
      return
    }
    await track(strict, 'someone@example.net', 'e')
    await settle(strict)
    const [run] = await runsOf(strict, answer.body.id)
    expect(run!.state).toBe('FAILED')
    expect(run!.history.at(-1)!.detail.error).toContain('loopback')
  } finally {
    await strict.close()
  }
})

describe('guards and control', () => {
  test('a workflow that re-enters itself through its own UPDATE_CONTACT stops after 10 runs an hour', async () => {
    const segment = (
      await api('POST', '/segments', { name: 'Flipped', trackMembership: true, condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.flip', operator: 'equals', value: true }] }] } })
    ).body
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: `segment.${segment.id}.entry` },
      allowReentry: true,
      steps: [
        { id: 'off', type: 'UPDATE_CONTACT', config: { data: { flip: false } }, next: 'on' },
        { id: 'on', type: 'UPDATE_CONTACT', config: { data: { flip: true } } },
      ],
    })
    await track(w, 'looper@example.net', 'start', { flip: true })
    for (let i = 0; i < 15; i++) await settle(w)
    expect(await runsOf(w, flow.id)).toHaveLength(10)
  })

  test('cancel-all ends the runs that wait; they send nothing afterwards', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'trial' },
      steps: [
        { id: 'wait', type: 'DELAY', config: { amount: 1, unit: 'days' }, next: 'mail' },
        { id: 'mail', type: 'SEND_EMAIL', config: { from: FROM, subject: 'Trial ends', body: '<p>Soon</p>' } },
      ],
    })
    await track(w, 'trial@example.net', 'trial')
    await settle(w)
    expect((await api('POST', `/workflows/${flow.id}/cancel-all`)).body).toEqual({ cancelled: 1 })
    clock.advance(2 * 86_400_000)
    await settle(w)
    expect((await runsOf(w, flow.id))[0]!.state).toBe('CANCELLED')
    expect(receivedCount(w, 'trial@example.net')).toBe(0)
  })

  test('a run in the middle of a DELAY survives a restart and sends once, when its time comes', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'onboard' },
      steps: [
        { id: 'wait', type: 'DELAY', config: { amount: 3, unit: 'days' }, next: 'mail' },
        { id: 'mail', type: 'SEND_EMAIL', config: { from: FROM, subject: 'Day three', body: '<p>Hi</p>' } },
      ],
    })
    await track(w, 'onboard@example.net', 'onboard')
    await settle(w)
    await w.t.restart()
    clock.advance(3 * 86_400_000)
    await w.t.app.deliveries.start()
    await settle(w)
    const runs = await runsOf(w, flow.id)
    expect(runs.map((r) => r.state)).toEqual(['COMPLETED'])
    expect(receivedCount(w, 'onboard@example.net')).toBe(1)
  })
})
