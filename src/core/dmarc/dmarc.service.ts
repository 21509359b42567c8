import type { Db } from '../../db/schema.ts'
import { insertMany } from '../../db/bulk.ts'
import { domainsWithReturnPath } from '../domains/domain-queries.ts'
import { recordsFor, reportDay, type DmarcReport } from './report.ts'

/** A sending domain that reports may be stored for. */
export interface ReportDomain {
  id: number
  project_id: number
  name: string
  status: string
}

/** The return-path host a `dmarc@` address names (lower case), or undefined when it is not such an address. */
export function reportAddressHost(address: string): string | undefined {
  const host = /^dmarc@([a-z0-9.-]+?)\.?$/i.exec(address.trim())?.[1]?.toLowerCase()
  return host && host.includes('.') ? host : undefined
}

/**
 * The sending domains whose report address (dmarc@<return-path host>) this is: one per project
 * that added the domain. None when it is not such an address, so it is refused like any other.
 */
export async function domainsOfReportAddress(db: Db, address: string): Promise<ReportDomain[]> {
  const host = reportAddressHost(address)
  if (!host) return []
  const dot = host.indexOf('.')
  return domainsWithReturnPath(db, host.slice(dot + 1), host.slice(0, dot))
}

/**
 * Of the domains a report address names, those its reports are kept for: the verified ones (a
 * domain is verified in one project at most), else the only one. When several projects added the
 * domain and none verified it, none has shown it owns it, and the reports are nobody's.
 */
export function reportOwners(domains: ReportDomain[]): ReportDomain[] {
  const verified = domains.filter((d) => d.status === 'SUCCESS' || d.status === 'TEMPORARY_FAILURE')
  if (verified.length > 0) return verified
  return domains.length === 1 ? domains : []
}

export type StoreOutcome =
  | { result: 'stored'; day: string; records: number; messages: number }
  | { result: 'duplicate'; receivedAt: number }
  | { result: 'refused'; reason: string }

/** Rows per insert statement: one JSON parameter each (insertMany). */
const ROWS_PER_INSERT = 1000

/**
 * Keeps a report for a domain: its metadata once per (reporter, report id), and its records per
 * day and source IP. A report received again changes nothing. Run it in a transaction: a report is
 * stored whole or not at all.
 */
export async function storeReport(db: Db, domain: Pick<ReportDomain, 'id' | 'name'>, report: DmarcReport, now: number): Promise<StoreOutcome> {
  const about = recordsFor(domain.name, report)
  if (!about.ok) return { result: 'refused', reason: about.reason }
  const orgKey = report.orgName.toLowerCase()
  const day = reportDay(report)
  const messages = about.records.reduce((sum, record) => sum + record.count, 0)
  const inserted = await db
    .insertInto('dmarc_reports')
    .values({
      domain_id: domain.id,
      org_name: report.orgName,
      org_key: orgKey,
      report_id: report.reportId,
      email: report.email,
      begin_at: report.begin * 1000,
      end_at: report.end * 1000,
      day,
      policy: JSON.stringify(report.policy),
      messages,
      records: about.records.length,
      received_at: now,
    })
    .onConflict((conflict) => conflict.columns(['domain_id', 'org_key', 'report_id']).doNothing())
    .returning('id')
    .executeTakeFirst()
  if (!inserted) {
    const first = await db
      .selectFrom('dmarc_reports')
      .select('received_at')
      .where('domain_id', '=', domain.id)
      .where('org_key', '=', orgKey)
      .where('report_id', '=', report.reportId)
      .executeTakeFirstOrThrow()
    return { result: 'duplicate', receivedAt: first.received_at }
  }
  const rows = about.records.map((record) => ({
    dmarc_report_id: inserted.id,
    domain_id: domain.id,
    day,
    source_ip: record.sourceIp,
    count: record.count,
    disposition: record.disposition,
    dkim_aligned: record.dkimAligned ? 1 : 0,
    spf_aligned: record.spfAligned ? 1 : 0,
    dkim_result: record.dkimResult,
    spf_result: record.spfResult,
    header_from: record.headerFrom,
    envelope_from: record.envelopeFrom,
    auth: JSON.stringify({ dkim: record.dkim, spf: record.spf }),
  }))
  const columns = Object.keys(rows[0] ?? {}) as Array<keyof (typeof rows)[number]>
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await insertMany(db, 'dmarc_rows', columns, rows.slice(i, i + ROWS_PER_INSERT))
  return { result: 'stored', day, records: rows.length, messages }
}
