import type { FakeDns, FakeRecord } from './fake-dns.ts'

interface ApiRecord {
  type: string
  name: string
  value: string
  priority: string
}

/** Publishes a domain's records as the API lists them; TXT values split into 255-byte strings. */
export function publishRecords(dns: FakeDns, records: ApiRecord[], options: { except?: string[] } = {}) {
  const byName = new Map<string, FakeRecord[]>()
  for (const record of records) {
    if (options.except?.includes(record.name)) continue
    const entry: FakeRecord =
      record.type === 'MX'
        ? { type: 'MX', exchange: record.value, priority: Number(record.priority) }
        : { type: 'TXT', data: record.value.match(/.{1,255}/g)! }
    byName.set(record.name, [...(byName.get(record.name) ?? []), entry])
  }
  for (const [name, entries] of byName) dns.records(name, ...entries)
}
