// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../helpers/clock.ts'
import { receivedBy, receivedCount, textOf } from '../helpers/sending.ts'
import { FROM, runsOf, settle, track, workflow } from '../helpers/workflows.ts'
import { createWorld, type World } from '../helpers/world.ts'

const clock = new ManualClock(Date.parse('2026-11-02T10:00:00Z'))
const HOUR = 3_600_000
let w: World

beforeAll(async () => {
  w = await createWorld({ clock })
})

afterAll(() => w.close())

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })
const outcomes = (run: { history: Array<{ stepId: string; outcome: string }> }) => run.history.map((h) => `${h.stepId}:${h.outcome}`)

describe('EVENT workflows', () => {
  test('a tracked event starts a run whose email uses the contact and the event', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'order.completed' },
      steps: [{ id: 'thanks', type: 'SEND_EMAIL', config: { from: FROM, subject: 'Order {{event.data.orderId}}', body: '<p>Thanks {{data.firstName ?? "friend"}}</p>' } }],
    })
    await track(w, 'buyer1@example.net', 'order.completed', { orderId: 'A-42', firstName: 'Ada' })
    await settle(w)
    const message = receivedBy(w, 'buyer1@example.net')
    expect(message.headers.subject).toBe('Order A-42')
    expect(textOf(message, 'text/html')).toContain('Thanks Ada')
    const [run] = await runsOf(w, flow.id)
    expect(run!.state).toBe('COMPLETED')
    expect(outcomes(run!)).toEqual(['thanks:sent'])
    expect(run!.history[0]!.detail.emailId).toBeString()
  })

  test('without re-entry a contact runs a workflow once in its life; with it, again after each run ends', async () => {
    const once = await workflow(w, { triggerType: 'EVENT', triggerConfig: { eventName: 'visit' }, steps: [{ id: 'x', type: 'UPDATE_CONTACT', config: { data: { visited: true } } }] })
    const again = await workflow(w, { triggerType: 'EVENT', triggerConfig: { eventName: 'visit' }, allowReentry: true, steps: [{ id: 'x', type: 'UPDATE_CONTACT', config: { data: { visited: true } } }] })
    for (let i = 0; i < 3; i++) {
      await track(w, 'visitor@example.net', 'visit')
      await settle(w)
    }
    expect(await runsOf(w, once.id)).toHaveLength(1)
    expect(await runsOf(w, again.id)).toHaveLength(3)
  })

  test('a condition on the trigger lets only matching contacts in', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'signup', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] } },
      steps: [{ id: 'x', type: 'EXIT' }],
    })
    await track(w, 'free@example.net', 'signup', { plan: 'free' })
    await track(w, 'pro@example.net', 'signup', { plan: 'pro' })
    await settle(w)
    const runs = await runsOf(w, flow.id)
    expect(runs).toHaveLength(1)
    expect(runs[0]!.state).toBe('EXITED')
  })

  test('an email event starts a run: email.delivered', async () => {
    const flow = await workflow(w, { triggerType: 'EVENT', triggerConfig: { eventName: 'email.delivered' }, steps: [{ id: 'note', type: 'UPDATE_CONTACT', config: { data: { gotMail: true } } }] })
    await api('POST', '/v1/send', { to: 'reader@example.net', subject: 'Hi', body: 'Hello', from: 'shop@sender.example.com' })
    await settle(w)
    const runs = await runsOf(w, flow.id)
    expect(runs.map((r) => r.state)).toEqual(['COMPLETED'])
    const contact = (await api('GET', '/contacts?search=reader@example.net')).body.contacts[0]
    expect(contact.data.gotMail).toBe(true)
  })

  test('a disabled workflow starts nothing new', async () => {
    const flow = await workflow(w, { triggerType: 'EVENT', triggerConfig: { eventName: 'ping' }, steps: [{ id: 'x', type: 'EXIT' }] })
    await api('PATCH', `/workflows/${flow.id}`, { enabled: false })
    await track(w, 'pinger@example.net', 'ping')
    await settle(w)
    expect(await runsOf(w, flow.id)).toHaveLength(0)
  })
})

describe('steps', () => {
  test('DELAY waits its time; WAIT_FOR_EVENT goes on by its event, or by its timeout', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'cart.abandoned' },
      steps: [
        { id: 'pause', type: 'DELAY', config: { amount: 2, unit: 'hours' }, next: 'wait' },
        { id: 'wait', type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase', timeoutSeconds: 86_400 }, onEvent: null, onTimeout: 'nudge' },
        { id: 'nudge', type: 'SEND_EMAIL', config: { from: FROM, subject: 'Your cart', body: '<p>Still there?</p>' } },
      ],
    })
    await track(w, 'buys@example.net', 'cart.abandoned')
    await track(w, 'forgets@example.net', 'cart.abandoned')
    await settle(w)
    expect((await runsOf(w, flow.id)).map((r) => `${r.state} ${r.currentStep}`)).toEqual(['WAITING pause', 'WAITING pause'])
    clock.advance(2 * HOUR)
    await settle(w)
    expect((await runsOf(w, flow.id)).map((r) => `${r.state} ${r.currentStep}`)).toEqual(['WAITING wait', 'WAITING wait'])
    await track(w, 'buys@example.net', 'purchase', { orderId: 'B-1' })
    await settle(w)
    clock.advance(25 * HOUR)
    await settle(w)
    const byContact = new Map((await runsOf(w, flow.id)).map((r) => [r.contactId, r]))
    const buys = (await api('GET', '/contacts?search=buys@example.net')).body.contacts[0].id
    expect(outcomes(byContact.get(buys)!)).toEqual(['pause:delaying', 'pause:waited', 'wait:waiting', 'wait:event'])
    expect(receivedCount(w, 'buys@example.net')).toBe(0)
    expect(receivedCount(w, 'forgets@example.net')).toBe(1)
  })

  test('CONDITION takes the yes or the no exit; UPDATE_CONTACT changes the contact', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'scored' },
      steps: [
        { id: 'check', type: 'CONDITION', config: { condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.score', operator: 'gte', value: 50 }] }] } }, yes: 'vip', no: 'leave' },
        { id: 'vip', type: 'UPDATE_CONTACT', config: { data: { tier: 'vip' } } },
        { id: 'leave', type: 'EXIT' },
      ],
    })
    await track(w, 'high@example.net', 'scored', { score: 80 })
    await track(w, 'low@example.net', 'scored', { score: 10 })
    await settle(w)
    const runs = await runsOf(w, flow.id)
    expect(runs.map(outcomes).sort()).toEqual([['check:no', 'leave:exited'], ['check:yes', 'vip:updated']])
    expect((await api('GET', '/contacts?search=high@example.net')).body.contacts[0].data.tier).toBe('vip')
    expect((await api('GET', '/contacts?search=low@example.net')).body.contacts[0].data.tier).toBeUndefined()
  })
})

describe('MANUAL and SCHEDULE workflows', () => {
  test('POST /workflows/{id}/trigger starts a run for each contact named', async () => {
    const flow = await workflow(w, { triggerType: 'MANUAL', triggerConfig: {}, steps: [{ id: 'hello', type: 'SEND_EMAIL', config: { from: FROM, subject: 'Hello', body: '<p>Hi</p>' } }] })
    await track(w, 'manual1@example.net', 'seen')
    const answer = await api('POST', `/workflows/${flow.id}/trigger`, { emails: ['manual1@example.net'] })
    expect(answer.status).toBe(200)
    await settle(w)
    expect(receivedCount(w, 'manual1@example.net')).toBe(1)
  })

  test('a SCHEDULE workflow enters the segment members at each tick of its cron', async () => {
    const segment = (await api('POST', '/segments', { name: 'Weekly', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.weekly', operator: 'equals', value: true }] }] } })).body
    await track(w, 'weekly1@example.net', 'joined', { weekly: true })
    await track(w, 'weekly2@example.net', 'joined', { weekly: true })
    const flow = await workflow(w, { triggerType: 'SCHEDULE', triggerConfig: { cron: '0 9 * * *', timezone: 'Europe/Paris', segmentId: segment.id }, steps: [{ id: 'x', type: 'EXIT' }] })
    await settle(w)
    expect(await runsOf(w, flow.id)).toHaveLength(0)
    clock.advance(24 * HOUR)
    await settle(w)
    expect(await runsOf(w, flow.id)).toHaveLength(2)
  })
})
