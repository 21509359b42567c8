import { fromCursorList, type Page } from '../lib/paging.ts'
import type { ApiClient } from './client.ts'

/** The project's delivery queue (src/http/routes/queue.ts): counts, the waiting deliveries by cursor, retry and cancel. */

export const QUEUE_STATES = ['scheduled', 'queued', 'sending', 'deferred', 'paused'] as const
export type QueueState = (typeof QUEUE_STATES)[number]

export interface QueueCounts {
  /** Deliveries in each pending state; a state with none is absent. */
  byState: Partial<Record<QueueState, number>>
  /** Pending deliveries by destination domain, most first (50 at most). */
  byDomain: { domain: string; count: number }[]
}

export interface QueuedDelivery {
  id: number
  emailId: string
  recipient: string
  domain: string
  state: QueueState
  attempts: number
  nextAttemptAt: string
  /** The receiving server's last answer, or why the last attempt failed. */
  lastResponse: string | null
  createdAt: string
}

export interface QueueFilter {
  state?: QueueState
  domain?: string
}

export const queueApi = (api: ApiClient) => ({
  counts: () => api.get<QueueCounts>('/api/v1/queue'),
  page: (filter: QueueFilter) => async (cursor: string | null, size: number): Promise<Page<QueuedDelivery>> => {
    const answer = await api.get<{ deliveries: QueuedDelivery[]; cursor: string | null; hasMore: boolean }>('/api/v1/queue/deliveries', { ...filter, limit: size, cursor })
    return fromCursorList(answer.deliveries, answer)
  },
  retry: (id: number) => api.post<{ retried: number }>(`/api/v1/queue/deliveries/${id}/retry`),
  cancel: (id: number) => api.post<{ cancelled: number }>(`/api/v1/queue/deliveries/${id}/cancel`),
  /** Every deferred delivery of the project (to `domain`, when given) is tried again now. */
  retryDeferred: (domain?: string) => api.post<{ retried: number }>('/api/v1/queue/retry', domain ? { domain } : {}),
})
