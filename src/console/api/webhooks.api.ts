import { fromNumberedList, type Page } from '../lib/cursor-pager.ts'
import type { ApiClient } from './api-client.ts'
import type { Answer, RequestBody, Schema } from './api-types.ts'

/** The project's webhooks and their delivery logs (src/http/routes/webhooks.routes.ts, mounted at /webhooks), paged by number. */

export type Webhook = Schema<'Webhook'>

export type WebhookDeliveryState = WebhookDelivery['state']

export type WebhookDelivery = Schema<'WebhookDelivery'>

/** A webhook's settings as its form makes them: the events are the form's choices, which the server checks. */
export type WebhookInput = Omit<RequestBody<'/webhooks', 'post'>, 'events'> & { events: string[] }

export type RotatedSecret = Answer<'/webhooks/{id}/rotate-secret', 'post'>

/** A test event's call: the request as sent and the answer (or why none came). */
export type TestCall = Answer<'/webhooks/{id}/test', 'post'>

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
  /** Sends a sample event of `type` now and answers the call; nothing is logged or retried. */
  test: (id: string, type: string) => api.post<TestCall>(`/webhooks/${encodeURIComponent(id)}/test`, { type }),
  deliveries: (id: string) => async (cursor: string | null, size: number): Promise<Page<WebhookDelivery>> => {
    const { deliveries, total } = await api.get<{ deliveries: WebhookDelivery[]; total: number }>(`/webhooks/${encodeURIComponent(id)}/deliveries`, { page: cursor ?? 1, pageSize: size })
    return fromNumberedList(deliveries, total, cursor, size)
  },
  replay: (id: string, deliveryId: string) => api.post<WebhookDelivery>(`/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/replay`),
})
