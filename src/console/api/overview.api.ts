import type { ApiClient } from './api-client.ts'
import type { Answer, Schema } from './api-types.ts'
import type { Domain } from './domains.api.ts'

/** What the Overview shows beside the charts: the queue, the domains and the server's self-checks. */

export type QueueStats = Answer<'/api/v1/queue', 'get'>

export type DnsRecord = Pick<Schema<'DnsRecord'>, 'type' | 'name' | 'status' | 'recommended' | 'problem'>

/** The fields of GET /api/v1/domains the Overview reads. */
export type DomainSummary = Pick<Domain, 'id' | 'name' | 'status' | 'errorMessage' | 'lastCheckedTime'> & { dnsRecords: DnsRecord[] }

export type CheckFinding = Schema<'ServerFinding'>

export type ServerChecks = Answer<'/api/v1/server/checks', 'get'>

export const overviewApi = (api: ApiClient) => ({
  queue: () => api.get<QueueStats>('/api/v1/queue'),
  domains: () => api.get<DomainSummary[]>('/api/v1/domains'),
  checks: () => api.get<ServerChecks>('/api/v1/server/checks'),
  /** How many emails the project has sent (one row asked for; the answer counts them all). */
  emailCount: async () => (await api.get<{ count: number }>('/api/v1/emails', { limit: 1 })).count,
  keyCount: async () => (await api.get<unknown[]>('/api/v1/keys')).length,
  webhookCount: async () => (await api.get<{ total: number }>('/webhooks', { pageSize: 1 })).total,
})
