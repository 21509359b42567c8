import type { ApiClient } from './client.ts'

/**
 * The project's sending domains (src/http/routes/domains.ts): each with the DNS records it
 * publishes and what the last check found for each.
 */

export type DomainStatus = 'NOT_STARTED' | 'PENDING' | 'SUCCESS' | 'FAILED' | 'TEMPORARY_FAILURE'

/** Status of one record after the last check: right, wrong within the grace, wrong for good. */
export type RecordStatus = 'PENDING' | 'SUCCESS' | 'FAILED'

export interface DnsRecord {
  type: 'TXT' | 'MX'
  name: string
  /** What is expected at `name`. */
  value: string
  /** In seconds, as text ("3600"). */
  ttl: string
  status: RecordStatus
  /** The MX preference ("10"); "" for a TXT record. */
  priority: string
  /** True for the records that help but do not decide whether the domain may send (DMARC, the Ed25519 key). */
  recommended: boolean
  /** What the last check found at the name: null when nothing, or not checked yet. */
  found: string | null
  /** Why the last check judged it so, when it is not right. */
  problem: string | null
  /**
   * Set when the record cannot be published yet, saying why: it would name this server's host
   * name, which is not a public DNS name (MAILSTEAD_HOSTNAME is to be set first). `value` still
   * holds what it would be.
   */
  unpublishable: string | null
}

export interface Domain {
  id: number
  name: string
  teamId: number
  status: DomainStatus
  publicKey: string
  createdAt: string
  updatedAt: string
  dnsRecords: DnsRecord[]
  region: string
  clickTracking: boolean
  openTracking: boolean
  transactionalClickTracking: boolean
  transactionalOpenTracking: boolean
  dkimStatus: string | null
  spfDetails: string | null
  dmarcAdded: boolean
  isVerifying: boolean
  errorMessage: string | null
  subdomain: string | null
  verificationError: string | null
  lastCheckedTime: string | null
  /** Set when some records cannot be published yet: which setting to set. */
  hostnameWarning: string | null
}

export interface Tracking {
  openTracking?: boolean
  clickTracking?: boolean
  transactionalOpenTracking?: boolean
  transactionalClickTracking?: boolean
}

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
