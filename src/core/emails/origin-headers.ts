import { isIP } from 'node:net'
import { addressRefusal } from '../../lib/outbound/addresses.ts'
import type { Field } from './raw-message.ts'

/**
 * Fields in which mail clients, webmail and app frameworks write the address of the machine
 * that wrote the message: behind the relay that is the app's own network, nothing a recipient
 * needs to see (Postfix users drop the same with header_checks; SES drops X-Originating-IP).
 */
export const ORIGIN_FIELDS: ReadonlySet<string> = new Set([
  'x-originating-ip', 'x-originating-host', 'x-sender-ip', 'x-client-ip', 'x-source-ip', 'x-source-host',
  'x-forwarded-for', 'x-real-ip', 'x-remote-ip', 'x-remote-addr', 'x-php-originating-script', 'x-php-script',
])

/** IPv4 and IPv6 address candidates in a trace field, bracketed or not. */
const ADDRESS_CANDIDATES = /\[?(?:IPv6:)?([0-9a-f:.]*[0-9a-f][0-9a-f:.]*)\]?/gi

/** Whether a Received field names an address that is not public: a hop inside the app's network. */
function namesPrivateHop(value: string): boolean {
  for (const [, candidate] of value.matchAll(ADDRESS_CANDIDATES)) {
    if (candidate && isIP(candidate) !== 0 && addressRefusal(candidate) !== undefined) return true
  }
  return false
}

/**
 * A field the relay drops when MAILSTEAD_RELAY_DROP_ORIGIN_HEADERS is on: one of ORIGIN_FIELDS, or a
 * Received line through a private, loopback or otherwise non-public address.
 */
export const leaksOrigin = (field: Field): boolean =>
  ORIGIN_FIELDS.has(field.name) || (field.name === 'received' && namesPrivateHop(field.value))
