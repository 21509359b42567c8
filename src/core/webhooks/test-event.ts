import type { IncomingHttpHeaders } from 'node:http'
import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import { sendRequest, type OutboundOptions } from '../../lib/outbound/request.ts'
import { webhookRequest } from './caller.ts'
import type { WebhookEventType } from './event-types.ts'
import { sampleEventData } from './sample-events.ts'
import { requireWebhook, signingSecrets } from './webhooks.service.ts'

/** A test call waits this long at most for the whole answer: the person who asked is waiting. */
const TEST_TIMEOUT_MS = 10_000
/** The beginning of the answer that is shown. */
const TEST_RESPONSE_BYTES = 1024
/** Tells the receiver the call is a test, besides the payload's `test: true`. */
export const TEST_HEADER = 'x-mailstead-test'

export interface TestEventDeps {
  db: Db
  serverSecret: string
  /** What a webhook's calls may reach: the same guard as the dispatcher's. */
  targets: OutboundOptions
}

/**
 * Calls the webhook now with a sample event of `type`, signed as a real call is and through the
 * same outbound guard, and answers what was sent and what came back (or why nothing did). The
 * payload is a real one's with `test: true`; nothing is written: a test call is no delivery, it is
 * not retried, and it does not count towards disabling a failing webhook. A disabled webhook can be
 * tested too. Never throws for the call's failure: the answer carries the error.
 */
export async function sendTestEvent(deps: TestEventDeps, projectId: number, webhookId: string, type: WebhookEventType, now: number) {
  const row = await requireWebhook(deps.db, projectId, webhookId)
  const eventId = newId()
  const body = JSON.stringify({ id: eventId, type, createdAt: isoTime(now), test: true, data: sampleEventData(type, now) })
  const call = { url: row.url, eventId, type, body, secrets: signingSecrets(deps.serverSecret, row, now) }
  // Signed at the real time, as the dispatcher signs: receivers compare the timestamp with their clock.
  const request = webhookRequest(call, Date.now(), { timeoutMs: TEST_TIMEOUT_MS, maxResponseBytes: TEST_RESPONSE_BYTES, headers: { [TEST_HEADER]: 'true' } })
  const result = await sendRequest(request, deps.targets)
  const response = result.status === null ? null : { status: result.status, headers: flatHeaders(result.headers), body: result.body, truncated: result.truncated === true }
  return {
    ok: result.ok,
    request: { method: request.method, url: request.url, headers: request.headers ?? {}, body },
    response,
    durationMs: result.durationMs,
    error: result.error ?? null,
  }
}

const flatHeaders = (headers: IncomingHttpHeaders | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(headers ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]])))
