import { fromNumberedList, type Page } from '../lib/cursor-pager.ts'
import type { ApiClient } from './api-client.ts'
import type { Answer, Item, Schema } from './api-types.ts'

/** The reports the server received about the project's mail (src/http/routes/reports.routes.ts). */

export type DmarcOverview = Answer<'/api/v1/reports/dmarc', 'get'>
export type DomainDmarc = Schema<'DomainDmarc'>
/** One domain's DMARC reports by day and source (GET /api/v1/domains/{id}/dmarc). */
export type DmarcSummary = Schema<'DmarcSummary'>
export type DmarcSource = Item<DmarcSummary['sources']>
export type ReceivedReport = Schema<'ReceivedReport'>
export type ReportAction = Item<ReceivedReport['actions']>
export type ReportKind = 'dsn' | 'arf' | 'plain-bounce'

/** The most domains one overview lists: a project has a handful. */
export const DOMAINS_SHOWN = 100

export const reportsApi = (api: ApiClient) => ({
  /** Each domain's line over the days from `from` to today (UTC). */
  dmarc: (from: string) => api.get<DmarcOverview>('/api/v1/reports/dmarc', { from, pageSize: DOMAINS_SHOWN }),
  /** One domain's reporters and sources over the same days. */
  domainDmarc: (domainId: number, from: string) => api.get<DmarcSummary>(`/api/v1/domains/${domainId}/dmarc`, { from }),
  /** A page of the bounce and complaint reports received, newest first. */
  received: async (cursor: string | null, size: number, kind?: ReportKind): Promise<Page<ReceivedReport>> => {
    const answer = await api.get<Answer<'/api/v1/reports/received', 'get'>>('/api/v1/reports/received', { page: cursor ?? 1, pageSize: size, kind })
    return fromNumberedList(answer.reports, answer.total, cursor, size)
  },
})
