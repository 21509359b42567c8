import type { Selectable } from 'kysely'
import type { DeliveryTable } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'

/** How the delivery module stores an attempt's TLS session (see settle). */
interface StoredTls {
  version: string
  cipher: string
  verified: boolean
  mtaSts?: { mode: string; applied: boolean; failure?: string }
}

/** The d= domains of DKIM-Signature headers, once each, in order. */
export function signingDomains(headers: string | null): string[] {
  if (!headers) return []
  const domains = [...headers.matchAll(/(?:^|[;\s])d=([^;\s]+)/g)].map((match) => match[1]!.toLowerCase())
  return [...new Set(domains)]
}

/**
 * How an email went for one recipient: its state, the attempts made, the last server's reply,
 * the MX host and address it reached, the TLS session (and MTA-STS policy) of that attempt, and
 * the domains its DKIM signatures name.
 */
export function deliveryDetail(delivery: Selectable<DeliveryTable>, signature: string | null) {
  const waiting = ['scheduled', 'queued', 'deferred', 'paused'].includes(delivery.state)
  return {
    recipient: delivery.recipient,
    state: delivery.state,
    attempts: delivery.attempts,
    lastResponse: delivery.last_response,
    mx: delivery.last_mx,
    ip: delivery.last_ip,
    tls: delivery.last_tls === null ? null : (JSON.parse(delivery.last_tls) as StoredTls),
    dkimDomains: signingDomains(signature),
    nextAttemptAt: waiting ? isoTime(delivery.next_attempt_at) : null,
    updatedAt: isoTime(delivery.updated_at),
  }
}
