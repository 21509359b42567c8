import { isIPv4 } from 'node:net'
import { ipv6Hex } from '../lib/outbound/addresses.ts'

/** What Mailstead knows of a DNS blocklist: its name, whether it lists IPv6, its answer codes. */
export interface BlocklistInfo {
  label: string
  ipv6: boolean
  /** What each answer address means. */
  codes: Readonly<Record<string, string>>
  /** How to get off it. */
  removal: string
}

const XBL = 'XBL: an exploited or infected machine (a bot, an open proxy, a hacked server)'

/**
 * The default lists and their return codes, from their own documentation: Spamhaus's "DNSBL
 * return codes" (ZEN combines SBL, XBL and PBL, and lists IPv6), Barracuda's BRBL and SpamCop's
 * SCBL (IPv4 only, 127.0.0.2 for a listing).
 */
const KNOWN: Readonly<Record<string, BlocklistInfo>> = {
  'zen.spamhaus.org': {
    label: 'Spamhaus ZEN',
    ipv6: true,
    codes: {
      '127.0.0.2': 'SBL: a known spam source or spam operation',
      '127.0.0.3': 'SBL CSS: a source of snowshoe spam',
      '127.0.0.4': XBL,
      '127.0.0.5': XBL,
      '127.0.0.6': XBL,
      '127.0.0.7': XBL,
      '127.0.0.9': 'DROP: a hijacked or criminal network',
      '127.0.0.10': 'PBL: an end-user range, set by its ISP, that should not send mail directly',
      '127.0.0.11': 'PBL: an end-user range, found by Spamhaus, that should not send mail directly',
    },
    removal:
      'Look the address up at https://check.spamhaus.org: it says why it is listed and how to be removed. ' +
      'Fix the cause first (an infected machine, an open proxy, a compromised account); a server address in the PBL can be taken out there.',
  },
  'b.barracudacentral.org': {
    label: 'Barracuda',
    ipv6: false,
    codes: { '127.0.0.2': 'listed on the Barracuda Reputation Block List' },
    removal: 'Once the cause is fixed, ask for removal at https://www.barracudacentral.org/rbl/removal-request.',
  },
  'bl.spamcop.net': {
    label: 'SpamCop',
    ipv6: false,
    codes: { '127.0.0.2': 'reported as a source of spam by SpamCop users' },
    removal: 'A SpamCop listing ends by itself about 24 hours after the last report: find and stop the mail that was reported (https://www.spamcop.net/bl.shtml).',
  },
}

/** Spamhaus's answers in 127.255.255.0/24: the query was refused, nothing was looked up. */
const REFUSALS: Readonly<Record<string, string>> = {
  '127.255.255.252': 'the list name is misspelled',
  '127.255.255.254': 'queries through public or open resolvers are refused',
  '127.255.255.255': 'too many queries from this resolver',
}

/** What is known of a list; a list not in the table is taken as IPv4 only, its codes shown raw. */
export function blocklistInfo(zone: string): BlocklistInfo {
  return (
    KNOWN[zone] ?? {
      label: zone,
      ipv6: false,
      codes: {},
      removal: `See the website of ${zone} for why the address is listed and how to be removed.`,
    }
  )
}

/**
 * The name to ask for `ip` on a list (RFC 5782): IPv4 octets reversed, IPv6 nibbles reversed,
 * under the list's zone. Undefined for an IPv6 address on a list that has no IPv6 entries.
 */
export function blocklistName(ip: string, zone: string): string | undefined {
  if (!isIPv4(ip) && !blocklistInfo(zone).ipv6) return undefined
  return `${reversedLabels(ip)}.${zone}`
}

/** The PTR name of an address: `5.113.0.203.in-addr.arpa`, or the nibbles under `ip6.arpa`. */
export const reverseName = (ip: string) => `${reversedLabels(ip)}.${isIPv4(ip) ? 'in-addr.arpa' : 'ip6.arpa'}`

function reversedLabels(ip: string): string {
  if (isIPv4(ip)) return ip.split('.').reverse().join('.')
  return ipv6Hex(ip).split('').reverse().join('.')
}

export type Listing =
  | { kind: 'listed'; reasons: string[] }
  | { kind: 'refused'; reason: string }
  | { kind: 'odd'; codes: string[] }

/**
 * What a list's A answers for an address mean: listed (each code decoded, unknown ones shown raw),
 * a refused query (127.255.255.x: not a listing, and not a clean bill either), or answers that are
 * no listing code at all (RFC 5782 2.1: listings are 127.0.0.2 and up; 127.0.0.1 is never one).
 */
export function readListing(zone: string, addresses: readonly string[]): Listing {
  const { codes } = blocklistInfo(zone)
  const listings = addresses.filter((a) => /^127\./.test(a) && a !== '127.0.0.1' && !a.startsWith('127.255.255.'))
  if (listings.length > 0) {
    return { kind: 'listed', reasons: [...new Set(listings.map((a) => (codes[a] ? `${codes[a]} (${a})` : `code ${a}`)))] }
  }
  const refusal = addresses.find((a) => a.startsWith('127.255.255.'))
  if (refusal) return { kind: 'refused', reason: `${refusal}: ${REFUSALS[refusal] ?? 'the list refused the query'}` }
  return { kind: 'odd', codes: [...addresses] }
}
