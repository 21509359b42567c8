import { sendRequest, type OutboundOptions, type OutboundRequest, type OutboundResult } from '../../lib/outbound/request.ts'
import { SIGNATURE_HEADER, signatureHeaders } from '../../lib/outbound/signature.ts'
import { useSendHeaders } from './usesend-signature.ts'

export interface WebhookCall {
  url: string
  /** The event's id: x-mailstead-id, the same on every attempt. */
  eventId: string
  /** The event's type (`email.delivered`), named in a header for receivers that route on it. */
  type: string
  body: string
  /** What signs the call: the webhook's secret, and the one before it while a rotation overlaps. */
  secrets: readonly string[]
}

export type CallWebhook = (call: WebhookCall) => Promise<OutboundResult>

export const USER_AGENT = 'Mailstead-Webhooks/1'

/** How long a call may take in all, and how much of the answer is read: an endpoint that hangs or floods holds nothing for long. */
const TIMEOUT_MS = 10_000
const MAX_RESPONSE_BYTES = 64 * 1024

/**
 * Mailstead's signature headers, with one `v1=` value per secret (a receiver that knows either
 * accepts), and useSend's, so that usesend-js's `webhooks(secret).constructEvent` accepts the call.
 */
export function signedHeaders(call: Omit<WebhookCall, 'url'>, nowMs: number): Record<string, string> {
  const signed = call.secrets.map((secret) => signatureHeaders(secret, call.eventId, call.body, nowMs))
  return {
    ...signed[0],
    [SIGNATURE_HEADER]: signed.map((headers) => headers[SIGNATURE_HEADER]).join(' '),
    ...useSendHeaders(call, nowMs),
  }
}

/**
 * POSTs an event's payload, signed, to a webhook's URL through sendRequest: the target is checked
 * again at every call, redirects are not followed, one deadline covers it all. Never throws.
 */
export const createDeliveryCaller = (targets: OutboundOptions, timeoutMs = TIMEOUT_MS): CallWebhook => (call) => sendRequest(webhookRequest(call, Date.now(), { timeoutMs }), targets)

/** The request a call makes: a POST of the JSON payload with the signature headers of `nowMs`. */
export function webhookRequest(call: WebhookCall, nowMs: number, limits: { timeoutMs?: number; maxResponseBytes?: number; headers?: Record<string, string> } = {}): OutboundRequest {
  return {
    url: call.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...limits.headers, ...signedHeaders(call, nowMs) },
    body: call.body,
    timeoutMs: limits.timeoutMs ?? TIMEOUT_MS,
    maxResponseBytes: limits.maxResponseBytes ?? MAX_RESPONSE_BYTES,
  }
}
