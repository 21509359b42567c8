/** What the application needs of DNS, whatever client answers it. */
export type RecordType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'NS' | 'SOA' | 'CNAME' | 'PTR'

export interface DnsRecord {
  name: string
  type: RecordType
  ttl: number
  /** Address, host name (MX, NS, CNAME, PTR), or TXT text (its character-strings joined). */
  value: string
  /** MX preference. */
  priority?: number
}

export interface DnsAnswer {
  /** NOERROR, NXDOMAIN, SERVFAIL, REFUSED, ... */
  rcode: string
  answers: DnsRecord[]
  authorities: DnsRecord[]
  /** Why an answer that came is still no answer (a CNAME loop), in words. */
  problem?: string
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

/** What went wrong with an answer, in words: `REFUSED`, or the problem found in it. */
export const failureOf = (answer: DnsAnswer) => answer.problem ?? answer.rcode
