import type { Db } from '../../db/schema.ts'
import { listDomains } from '../domains/index.ts'
import { dmarcSummary, type DayRange, type DmarcSummary } from './summary.ts'

/** One domain's line of the project's DMARC overview. */
export interface DomainDmarc {
  domain: { id: number; name: string }
  reports: number
  totals: DmarcSummary['totals']
  /** Source addresses seen in the range, by what their mail did. */
  sources: {
    total: number
    /** All of its messages passed DMARC. */
    passing: number
    /** Some of its messages failed DMARC. */
    failing: number
    /** Not one of this server's addresses: another service, or someone spoofing the domain. */
    notThisServer: number
  }
}

/** A domain's summary reduced to the overview's line (sources counted among the 1,000 listed). */
export function overviewLine(summary: DmarcSummary): DomainDmarc {
  const passing = summary.sources.filter((s) => s.dmarcPass === s.messages).length
  return {
    domain: summary.domain,
    reports: summary.reports.count,
    totals: summary.totals,
    sources: { total: summary.sourceCount, passing, failing: summary.sources.length - passing, notThisServer: summary.flagged },
  }
}

/**
 * The DMARC aggregate reports of a page of the project's domains over `range`, one line each in
 * the order the domains are listed; `GET /api/v1/domains/{id}/dmarc` has one domain's detail.
 */
export async function dmarcOverview(db: Db, projectId: number, range: DayRange, serverIps: readonly string[], paging: { page: number; pageSize: number }) {
  const domains = await listDomains(db, projectId)
  const shown = domains.slice((paging.page - 1) * paging.pageSize, paging.page * paging.pageSize)
  const lines: DomainDmarc[] = []
  for (const domain of shown) lines.push(overviewLine(await dmarcSummary(db, projectId, domain.id, range, serverIps)))
  return { from: range.from, to: range.to, domains: lines, page: paging.page, pageSize: paging.pageSize, total: domains.length }
}
