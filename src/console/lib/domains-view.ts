import type { DnsRecord, Domain, DomainStatus } from '../api/domains.api.ts'

/*
 * What the Domains page makes of a domain's answer: the words for its status and each record's
 * verdict, and the zone file to download. The zone file is built here, from the records the API
 * already sends, in the very form `mailstead domain records` prints (src/core/domains/zone.ts).
 */

/** A TXT value as zone-file character-strings: at most 255 octets each (RFC 1035 3.3), quoted. */
export function txtStrings(value: string): string {
  const bytes = new TextEncoder().encode(value)
  const parts: string[] = []
  // The values are ASCII (keys in base64, tags); a character of several bytes is never split.
  for (let start = 0; start < bytes.length; ) {
    let end = Math.min(start + 255, bytes.length)
    while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--
    parts.push(new TextDecoder().decode(bytes.slice(start, end)))
    start = end
  }
  if (parts.length === 0) parts.push('')
  return parts.map((part) => `"${part.replace(/["\\]/g, (c) => '\\' + c)}"`).join(' ')
}

/** One record as a zone-file line: absolute name, TTL, class, type and data. */
export function zoneLine(record: Pick<DnsRecord, 'type' | 'name' | 'value' | 'ttl' | 'priority'>): string {
  const name = record.name.endsWith('.') ? record.name : `${record.name}.`
  const data = record.type === 'MX' ? `${record.priority || 10} ${record.value.replace(/\.?$/, '.')}` : txtStrings(record.value)
  return `${name} ${record.ttl || '3600'} IN ${record.type} ${data}`
}

type ZoneRecord = Pick<DnsRecord, 'type' | 'name' | 'value' | 'ttl' | 'priority' | 'recommended'> & Partial<Pick<DnsRecord, 'unpublishable'>>

/**
 * A record's line in the zone file: a record that cannot be published yet (it would name a host
 * that is not a public DNS name: `MX 10 vm.`) is a comment saying why, as the CLI prints it.
 */
function zoneFileLine(record: ZoneRecord): string {
  if (record.unpublishable) return `; ${record.name.replace(/\.?$/, '.')} ${record.type}: not given, ${record.unpublishable}`
  return record.recommended ? `${zoneLine(record)} ; recommended` : zoneLine(record)
}

/** A zone-file fragment of the domain's records, to import into a DNS provider's zone editor. */
export function zoneFile(domain: Pick<Domain, 'name'> & { dnsRecords: ZoneRecord[] }): string {
  const lines = [
    `; The DNS records that ${domain.name} publishes to send through Mailstead.`,
    '; Required records first; the ones marked "recommended" help delivery but are not required.',
    ...domain.dnsRecords.map(zoneFileLine),
  ]
  return `${lines.join('\n')}\n`
}

/** The name of the downloaded zone file. */
export const zoneFileName = (domain: Pick<Domain, 'name'>) => `${domain.name}.zone`

/** What a record is for, from what it holds: "DKIM", "SPF", ... */
export function recordPurpose(record: Pick<DnsRecord, 'type' | 'name' | 'value'>): string {
  if (record.type === 'MX') return 'Return-path MX'
  const value = record.value.trim()
  if (/^v=DKIM1/i.test(value)) return /\bk=ed25519\b/i.test(value) ? 'DKIM (Ed25519)' : 'DKIM'
  if (/^v=spf1/i.test(value)) return 'SPF'
  if (/^v=DMARC1/i.test(value)) return 'DMARC'
  return record.type
}

/** Right; wrong where it matters (a required record); not right yet, or wrong where it only helps (a recommended one). */
export type Tone = 'ok' | 'bad' | 'wait' | 'warn'

export interface Verdict {
  tone: Tone
  label: string
}

/**
 * A record's verdict after the domain's last check: good; not checked yet; or not found / wrong,
 * with the API's `problem` saying why (a warning only for a recommended record: the domain may
 * send without it).
 */
export function recordVerdict(record: Pick<DnsRecord, 'status' | 'found' | 'problem' | 'recommended'>, checked: boolean): Verdict {
  if (record.status === 'SUCCESS') return { tone: 'ok', label: 'Good' }
  if (!checked || (record.found === null && record.problem === null)) return { tone: 'wait', label: 'Not checked yet' }
  return { tone: record.recommended ? 'warn' : 'bad', label: record.found === null ? 'Not found' : 'Wrong' }
}

const STATUS: Record<DomainStatus, Verdict> = {
  NOT_STARTED: { tone: 'wait', label: 'Not checked yet' },
  PENDING: { tone: 'wait', label: 'Pending' },
  SUCCESS: { tone: 'ok', label: 'Verified' },
  FAILED: { tone: 'bad', label: 'Failed' },
  TEMPORARY_FAILURE: { tone: 'bad', label: 'Temporary failure' },
}

/** A domain's status in words: only a verified domain may send. */
export const domainStatus = (status: DomainStatus): Verdict => STATUS[status] ?? { tone: 'wait', label: status }

