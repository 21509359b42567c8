import type { ApiClient } from './client.ts'

/** What the Overview shows beside the charts: the queue, the domains and the server's self-checks. */

export interface QueueStats {
  /** Deliveries in each pending state; a state with none is absent. */
  byState: Record<string, number>
  byDomain: { domain: string; count: number }[]
}

export interface DnsRecord {
  type: string
  name: string
  status: string
  recommended: boolean
  problem: string | null
}

/** The fields of GET /api/v1/domains the Overview reads. */
export interface DomainSummary {
  id: number
  name: string
  status: 'NOT_STARTED' | 'PENDING' | 'SUCCESS' | 'FAILED' | 'TEMPORARY_FAILURE'
  dnsRecords: DnsRecord[]
  errorMessage: string | null
  lastCheckedTime: string | null
}

export interface CheckFinding {
  check: string
  subject: string
  status: 'ok' | 'warning' | 'failed' | 'unchecked' | 'skipped'
  message: string
  fix?: string
}

export interface ServerChecks {
  checkedAt: string | null
  hostname: string
  ips: string[]
  findings: CheckFinding[]
}

export const overviewApi = (api: ApiClient) => ({
  queue: () => api.get<QueueStats>('/api/v1/queue'),
  domains: () => api.get<DomainSummary[]>('/api/v1/domains'),
  checks: () => api.get<ServerChecks>('/api/v1/server/checks'),
})
