import { describe, expect, test } from 'bun:test'
import type { WebhookDelivery } from '../api/webhooks.api.ts'
import { awaitingCalls, chosenEvents, deliveryState, EVENT_TYPES, eventsSummary, mayManageWebhooks, mayReplay, prettyBody, responseSummary, testCallSummary, testEventTypes } from './webhooks-view.ts'

const delivery = (changes: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: 'd1',
  eventId: 'e1',
  type: 'contact.created',
  state: 'delivered',
  attempts: 1,
  nextAttemptAt: null,
  lastAttemptAt: '2026-11-05T10:00:00.000Z',
  lastStatus: 200,
  lastError: null,
  lastDurationMs: 35,
  lastResponseBody: 'ok',
  payload: { id: 'e1' },
  createdAt: '2026-11-05T10:00:00.000Z',
  updatedAt: '2026-11-05T10:00:00.000Z',
  ...changes,
})

describe('the events chosen', () => {
  test('"all" stands alone, whatever else is ticked', () => {
    expect(chosenEvents(['email.sent', '*', 'contact.created'])).toEqual(['*'])
  })

  test('types come in the order offered, each once, and a type this console does not know is kept', () => {
    expect(chosenEvents(['contact.created', 'email.sent', 'email.sent', 'thing.new'])).toEqual(['email.sent', 'contact.created', 'thing.new'])
    expect(chosenEvents([])).toEqual([])
  })

  test('read in a few words', () => {
    expect(eventsSummary(['*'])).toBe('All events')
    expect(eventsSummary(['email.sent'])).toBe('email.sent')
    expect(eventsSummary(['email.sent', 'email.bounced', 'contact.created'])).toBe('email.sent and 2 more')
    expect(eventsSummary([])).toBe('None')
  })
})

describe('a delivery in the log', () => {
  test('its state in a word: waiting before its first call, retrying after a failed one', () => {
    expect(deliveryState(delivery()).label).toBe('Delivered')
    expect(deliveryState(delivery({ state: 'failed' }))).toEqual({ label: 'Failed', tone: 'bad' })
    expect(deliveryState(delivery({ state: 'pending', attempts: 0 })).label).toBe('Waiting')
    expect(deliveryState(delivery({ state: 'pending', attempts: 2 })).label).toBe('Retrying')
    expect(deliveryState(delivery({ state: 'paused' })).label).toBe('Held')
  })

  test("the endpoint's answer in short: its status and time, else the error, else that none was made", () => {
    expect(responseSummary(delivery())).toBe('HTTP 200 in 35 ms')
    expect(responseSummary(delivery({ lastStatus: null, lastError: 'connection refused', lastDurationMs: 3 }))).toBe('No answer in 3 ms: connection refused')
    expect(responseSummary(delivery({ lastAttemptAt: null, lastStatus: null, lastDurationMs: null }))).toBe('Not called yet')
  })

  test('only a finished delivery of an enabled webhook is replayed', () => {
    expect(mayReplay(delivery({ state: 'delivered' }), true)).toBe(true)
    expect(mayReplay(delivery({ state: 'failed' }), true)).toBe(true)
    expect(mayReplay(delivery({ state: 'pending' }), true)).toBe(false)
    expect(mayReplay(delivery({ state: 'paused' }), true)).toBe(false)
    expect(mayReplay(delivery({ state: 'failed' }), false)).toBe(false)
  })

  test('the log looks again soon while a call is due within seconds, not for a retry an hour away', () => {
    const now = Date.parse('2026-11-05T10:00:00Z')
    expect(awaitingCalls([delivery()], now)).toBe(false)
    expect(awaitingCalls([delivery(), delivery({ state: 'pending', nextAttemptAt: '2026-11-05T10:00:00.000Z' })], now)).toBe(true)
    expect(awaitingCalls([delivery({ state: 'pending', nextAttemptAt: '2026-11-05T10:00:04.000Z' })], now)).toBe(true)
    expect(awaitingCalls([delivery({ state: 'pending', nextAttemptAt: '2026-11-05T11:00:00.000Z' })], now)).toBe(false)
    expect(awaitingCalls([delivery({ state: 'paused', nextAttemptAt: null })], now)).toBe(false)
  })

  test('a JSON answer is indented; any other is shown as it came', () => {
    expect(prettyBody('{"ok":true}')).toBe('{\n  "ok": true\n}')
    expect(prettyBody('{broken')).toBe('{broken')
    expect(prettyBody('<h1>Oops</h1>')).toBe('<h1>Oops</h1>')
  })
})

test('owners and admins manage webhooks; members and viewers only read them', () => {
  expect(['owner', 'admin', 'member', 'viewer'].map(mayManageWebhooks)).toEqual([true, true, false, false])
})

describe('test events', () => {
  test('a webhook taking every event can be sent a test of each type; one taking some, of those', () => {
    expect(testEventTypes(['*'])).toEqual(EVENT_TYPES)
    expect(testEventTypes(['email.bounced', 'contact.created'])).toEqual(['email.bounced', 'contact.created'])
  })

  test("a test call's outcome in a sentence", () => {
    expect(testCallSummary({ ok: true, response: { status: 200 }, durationMs: 35, error: null })).toBe('The endpoint answered HTTP 200 in 35 ms.')
    expect(testCallSummary({ ok: false, response: { status: 500 }, durationMs: 12, error: 'HTTP 500' })).toBe('The endpoint answered HTTP 500 in 12 ms, which is not a success.')
    expect(testCallSummary({ ok: false, response: null, durationMs: 3, error: 'connection refused' })).toBe('No answer after 3 ms: connection refused.')
  })
})
