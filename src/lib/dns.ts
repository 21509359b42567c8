/** What the application needs of DNS, whatever client answers it. */
export type RecordType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'NS' | 'SOA' | 'CNAME'

export interface DnsRecord {
  name: string
  type: RecordType
  ttl: number
  /** Address, host name, or TXT text (its character-strings joined). */
  value: string
  /** MX preference. */
  priority?: number
}

export interface DnsAnswer {
  /** NOERROR, NXDOMAIN, SERVFAIL, REFUSED, ... */
  rcode: string
  answers: DnsRecord[]
  authorities: DnsRecord[]
}

export interface Resolver {
  /** Rejects with DnsUnavailableError when no server answered in time. */
  query(name: string, type: RecordType): Promise<DnsAnswer>
}

export class DnsUnavailableError extends Error {
  override name = 'DnsUnavailableError'
}

/** The records of `type` in the answer section (CNAMEs and others left out). */
export const recordsOf = (answer: DnsAnswer, type: RecordType) => answer.answers.filter((r) => r.type === type)
