import { apiQueryOf, type EmailFilters } from '../lib/email-filters.ts'
import { fromNumberedList, type Page } from '../lib/cursor-pager.ts'
import type { ApiClient } from './api-client.ts'
import type { Answer, RequestBody, Schema } from './api-types.ts'
import type { Domain } from './domains.api.ts'

/** The project's emails (src/http/routes/emails.routes.ts): the log, paged by number, and one email with its events and deliveries. */

export type EmailSummary = Schema<'EmailSummary'>

export type EmailEvent = Schema<'EmailEvent'>

export type DeliveryState = Delivery['state']

/** How the email went for one recipient. */
export type Delivery = Schema<'EmailDelivery'>

export type Email = Answer<'/api/v1/emails/{emailId}', 'get'>

/** One of the checks a receiving server would run (GET …/checks). */
export type EmailCheck = Schema<'EmailCheck'>

export type EmailChecks = Schema<'EmailChecks'>

/** What POST /api/v1/emails takes (useSend's form). */
export type SendEmail = RequestBody<'/api/v1/emails', 'post'>

export interface DomainName {
  id: number
  name: string
}

const path = (id: string) => `/api/v1/emails/${encodeURIComponent(id)}`

export const emailsApi = (api: ApiClient) => ({
  /** One page of the log under `filters`, newest first. */
  page: (filters: EmailFilters) => async (cursor: string | null, size: number): Promise<Page<EmailSummary>> => {
    const { data, count } = await api.get<{ data: EmailSummary[]; count: number }>('/api/v1/emails', { ...apiQueryOf(filters), page: cursor ?? 1, limit: size })
    return fromNumberedList(data, count, cursor, size)
  },
  get: (id: string) => api.get<Email>(path(id)),
  /** Sends an email as the signed-in person (their role must allow sending). */
  send: (body: SendEmail) => api.post<{ emailId: string }>('/api/v1/emails', body),
  /** The names of the project's verified domains, which mail may be sent from. */
  verifiedDomains: async (): Promise<string[]> => (await api.get<Pick<Domain, 'name' | 'status'>[]>('/api/v1/domains')).filter((d) => d.status === 'SUCCESS').map((d) => d.name),
  cancel: (id: string) => api.post<{ emailId: string }>(`${path(id)}/cancel`),
  reschedule: (id: string, scheduledAt: string) => api.patch<{ emailId: string }>(path(id), { scheduledAt }),
  /** The message as its recipients got it (message/rfc822). */
  raw: (id: string) => api.blob(`${path(id)}/raw`),
  /** The message as its recipients got it, as text (for its headers). */
  rawText: async (id: string) => (await api.blob(`${path(id)}/raw`)).text(),
  /** What a receiving server would check on it. */
  checks: (id: string) => api.get<EmailChecks>(`${path(id)}/checks`),
  /** The sending domains, for the log's domain filter. */
  domains: async (): Promise<DomainName[]> => (await api.get<DomainName[]>('/api/v1/domains')).map(({ id, name }) => ({ id, name })),
  /**
   * The address of the email's HTML as a sandboxed document (GET …/preview), for a frame: it
   * cannot send X-Project-Id, so the project goes in the query.
   */
  previewUrl: (id: string, remoteImages: boolean) => `${path(id)}/preview?projectId=${api.projectId ?? ''}${remoteImages ? '&remoteImages=true' : ''}`,
})
