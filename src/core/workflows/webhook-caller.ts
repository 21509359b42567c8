import { sendRequest } from '../../lib/outbound/request.ts'
import { signatureHeaders } from '../../lib/outbound/signature.ts'
import type { WebhookCall } from './steps.ts'

export interface CallerSettings {
  /** Whether private, loopback and link-local targets may be called. */
  allowPrivate: boolean
  resolve: (host: string) => Promise<string[]>
}

/** How long a WEBHOOK step waits for an answer, and how much of it is read. */
const TIMEOUT_MS = 10_000
const MAX_RESPONSE_BYTES = 64 * 1024

/**
 * Calls a WEBHOOK step's endpoint: the body as JSON, signed with the workflow's secret over
 * `timestamp.body`, the same id on every retry; refused targets and network trouble are failed
 * results, never exceptions.
 */
export const createWebhookCaller = (settings: CallerSettings) => async (call: WebhookCall) => {
  const body = call.method === 'GET' ? '' : JSON.stringify(call.body ?? null)
  const headers = {
    ...call.headers,
    ...(body && { 'content-type': 'application/json' }),
    'user-agent': 'Mailstead-Workflows/1',
    ...signatureHeaders(call.secret, call.id, body, Date.now()),
  }
  return sendRequest({ url: call.url, method: call.method, headers, ...(body && { body }), timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES }, settings)
}
