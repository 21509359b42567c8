/**
 * A DMARC aggregate report (RFC 7489 Appendix C) as this server keeps it: what src/smtp/dmarc-report.ts
 * reads out of the XML, every value already checked.
 */

export interface DmarcAuthResult {
  domain: string
  result: string
  /** DKIM: the selector, when given. */
  selector?: string
  /** SPF: the scope (mfrom, helo), when given. */
  scope?: string
}

export interface DmarcRecord {
  /** Canonical form (src/lib/ip.ts). */
  sourceIp: string
  count: number
  /** What the receiver did: none, quarantine or reject. */
  disposition: string
  /** policy_evaluated: whether DKIM and SPF passed aligned with the From domain. */
  dkimAligned: boolean
  spfAligned: boolean
  /** The authentication results before alignment: DKIM pass when any signature passed. */
  dkimResult: string
  spfResult: string
  headerFrom: string
  envelopeFrom: string | null
  dkim: DmarcAuthResult[]
  spf: DmarcAuthResult[]
}

export interface DmarcReport {
  orgName: string
  email: string | null
  reportId: string
  /** The date range the report covers, epoch seconds. */
  begin: number
  end: number
  /** policy_published: the domain whose DMARC record named the rua, and that record's policy. */
  domain: string
  policy: { p: string | null; sp: string | null; adkim: string | null; aspf: string | null; pct: string | null }
  records: DmarcRecord[]
}

/** The UTC day (YYYY-MM-DD) a report's rows count on: the middle of its date range. */
export const reportDay = (report: Pick<DmarcReport, 'begin' | 'end'>) => new Date(((report.begin + report.end) / 2) * 1000).toISOString().slice(0, 10)

const within = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`)

/**
 * The records of `report` that are about `domain`, the sending domain it was addressed to, or why
 * none are. A report about the domain itself counts whole. One about a parent domain (whose DMARC
 * record named this domain's rua) counts only for mail from this domain and its subdomains. A
 * report about any other domain is not for this address.
 */
export function recordsFor(domain: string, report: DmarcReport): { ok: true; records: DmarcRecord[] } | { ok: false; reason: string } {
  if (report.domain === domain) return { ok: true, records: report.records }
  if (!within(domain, report.domain)) return { ok: false, reason: `the report is about ${report.domain}, not ${domain}, the domain it was addressed to` }
  const records = report.records.filter((record) => within(record.headerFrom, domain))
  if (records.length === 0 && report.records.length > 0) {
    return { ok: false, reason: `the report is about ${report.domain} and none of its records are mail from ${domain}, the domain it was addressed to` }
  }
  return { ok: true, records }
}
