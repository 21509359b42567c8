import { fromCursorList, type Page } from '../lib/cursor-pager.ts'
import type { ApiClient } from './api-client.ts'
import type { Answer, Schema } from './api-types.ts'

/** The project's delivery queue (src/http/routes/queue.routes.ts): counts, the waiting deliveries by cursor, retry and cancel. */

export const QUEUE_STATES = ['scheduled', 'queued', 'sending', 'deferred', 'paused'] as const
export type QueueState = (typeof QUEUE_STATES)[number]

export type QueueCounts = Answer<'/api/v1/queue', 'get'>

/** A waiting delivery; the list holds pending states only (the document says a string). */
export type QueuedDelivery = Omit<Schema<'QueuedDelivery'>, 'state'> & { state: QueueState }

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
