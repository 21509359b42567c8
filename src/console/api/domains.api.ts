import type { ApiClient } from './api-client.ts'
import type { RequestBody, Schema } from './api-types.ts'

/**
 * The project's sending domains (src/http/routes/domains.routes.ts): each with the DNS records it
 * publishes and what the last check found for each.
 */

export type DomainStatus = Domain['status']

/** Status of one record after the last check: right, wrong within the grace, wrong for good. */
export type RecordStatus = 'PENDING' | 'SUCCESS' | 'FAILED'

export type DnsRecord = Schema<'DnsRecord'>

export type Domain = Schema<'Domain'>

export type Tracking = RequestBody<'/domains/{id}', 'patch'>

export const domainsApi = (api: ApiClient) => ({
  list: () => api.get<Domain[]>('/api/v1/domains'),
  get: (id: number) => api.get<Domain>(`/api/v1/domains/${id}`),
  add: (body: { name: string; region: string }) => api.post<Domain>('/api/v1/domains', body),
  /** Starts a check and answers at once; the domain's lastCheckedTime moves when it has ended. */
  verify: (id: number) => api.request<{ message: string }>('PUT', `/api/v1/domains/${id}/verify`),
  /** The tracking route has no /api/v1 prefix (as useSend's). */
  setTracking: (id: number, body: Tracking) => api.patch<Domain>(`/domains/${id}`, body),
  remove: (id: number) => api.delete<{ id: number; success: boolean; message: string }>(`/api/v1/domains/${id}`),
})
