import { unpublishableReason } from './host-records.ts'
import type { ExpectedRecord } from './records.ts'

/** A TXT value as zone-file character-strings: at most 255 octets each (RFC 1035 3.3). */
export function txtStrings(value: string): string {
  const parts: string[] = []
  for (let i = 0; i < value.length; i += 255) parts.push(value.slice(i, i + 255))
  return parts.map((part) => `"${part.replace(/["\\]/g, (c) => '\\' + c)}"`).join(' ')
}

/** The records as zone-file lines, ready to paste into a DNS provider's zone editor. */
export function zoneLines(records: readonly ExpectedRecord[], ttl = 3600): string[] {
  return records.map((record) => {
    const data = record.type === 'MX' ? `${record.priority} ${record.value}.` : txtStrings(record.value)
    return `${record.name}. ${ttl} IN ${record.type} ${data}`
  })
}

/**
 * The records as zone-file lines for this server's `hostname`. When that is not a public DNS name
 * (the machine's own name, "vm", by default), a record that would name it cannot work (`MX 10
 * vm.`): a comment line stands in its place, saying which setting to set first. The console builds
 * the same lines from the API's `unpublishable` (src/console/lib/domains-view.ts).
 */
export function zoneFileFor(records: readonly ExpectedRecord[], hostname: string): string[] {
  return records.map((record) => {
    const reason = unpublishableReason(record, hostname)
    return reason ? `; ${record.name}. ${record.type}: not given, ${reason}` : zoneLines([record])[0]!
  })
}
