import { hmac } from '../../lib/outbound/signature.ts'

/**
 * The headers useSend signs its webhook calls with, as usesend-js checks them
 * (`webhooks(secret).verify` and `.constructEvent`):
 *
 *   X-UseSend-Signature:  v1=<hex HMAC-SHA256 with the secret over "<timestamp>.<body>">
 *   X-UseSend-Timestamp:  milliseconds since the epoch (Mailstead's own header is in seconds)
 *   X-UseSend-Event:      the event's type
 *   X-UseSend-Call:       the event's id, the same on every attempt
 *
 * The SDK compares the whole signature header with one value, so unlike Mailstead's header it
 * carries one signature only: the current secret's. During a rotation a receiver on usesend-js
 * moves to the new secret; Mailstead's header carries both.
 */
export function useSendHeaders(call: { eventId: string; type: string; body: string; secrets: readonly string[] }, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs))
  return {
    'x-usesend-signature': `v1=${hmac(call.secrets[0]!, timestamp, call.body)}`,
    'x-usesend-timestamp': timestamp,
    'x-usesend-event': call.type,
    'x-usesend-call': call.eventId,
  }
}
