import { fromNumberedList, type Page } from '../lib/paging.ts'
import type { ApiClient } from './client.ts'

/** The project's webhooks and their delivery logs (src/http/routes/webhooks.ts, mounted at /webhooks), paged by number. */

export interface Webhook {
  id: string
  url: string
  /** Event types, or ["*"] for every type. */
  events: string[]
  enabled: boolean
  /** Why the server disabled it (too many failed calls in a row); null when a person did, or it is enabled. */
  disabledReason: string | null
  consecutiveFailures: number
  createdAt: string
  updatedAt: string
}

export type WebhookDeliveryState = 'pending' | 'paused' | 'delivered' | 'failed'

export interface WebhookDelivery {
  id: string
  /** The payload's id and x-mailstead-id: the same on every attempt and replay. */
  eventId: string
  type: string
  state: WebhookDeliveryState
  attempts: number
  nextAttemptAt: string | null
  lastAttemptAt: string | null
  lastStatus: number | null
  lastError: string | null
  lastDurationMs: number | null
  /** The beginning of the endpoint's answer to the last call (2,000 characters at most). */
  lastResponseBody: string | null
  /** The body POSTed: {id, type, createdAt, data}. */
  payload: unknown
  createdAt: string
  updatedAt: string
}

export interface WebhookInput {
  url: string
  events: string[]
  enabled?: boolean
}

export interface RotatedSecret {
  /** Shown this once. */
  secret: string
  /** Until when the old secret signs too; null when it stopped at once. */
  previousSecretExpiresAt: string | null
}

export const webhooksApi = (api: ApiClient) => ({
  page: async (cursor: string | null, size: number): Promise<Page<Webhook>> => {
    const { webhooks, total } = await api.get<{ webhooks: Webhook[]; total: number }>('/webhooks', { page: cursor ?? 1, pageSize: size })
    return fromNumberedList(webhooks, total, cursor, size)
  },
  get: (id: string) => api.get<Webhook>(`/webhooks/${encodeURIComponent(id)}`),
  /** The answer's `secret` signs its calls; it is shown this once. */
  create: (body: WebhookInput) => api.post<Webhook & { secret: string }>('/webhooks', body),
  update: (id: string, patch: Partial<WebhookInput>) => api.patch<Webhook>(`/webhooks/${encodeURIComponent(id)}`, patch),
  remove: (id: string) => api.delete<{ id: string; success: boolean }>(`/webhooks/${encodeURIComponent(id)}`),
  rotateSecret: (id: string, overlapHours: number) => api.post<RotatedSecret>(`/webhooks/${encodeURIComponent(id)}/rotate-secret`, { overlapHours }),
  deliveries: (id: string) => async (cursor: string | null, size: number): Promise<Page<WebhookDelivery>> => {
    const { deliveries, total } = await api.get<{ deliveries: WebhookDelivery[]; total: number }>(`/webhooks/${encodeURIComponent(id)}/deliveries`, { page: cursor ?? 1, pageSize: size })
    return fromNumberedList(deliveries, total, cursor, size)
  },
  replay: (id: string, deliveryId: string) => api.post<WebhookDelivery>(`/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/replay`),
})
