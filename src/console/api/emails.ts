import { apiQueryOf, type EmailFilters } from '../lib/email-filters.ts'
import { fromNumberedList, type Page } from '../lib/paging.ts'
import type { ApiClient } from './client.ts'

/** The project's emails (src/http/routes/emails.ts): the log, paged by number, and one email with its events and deliveries. */

export interface EmailSummary {
  id: string
  to: string[]
  cc: string[]
  bcc: string[]
  replyTo: string[]
  from: string
  subject: string
  status: string
  createdAt: string
  updatedAt: string
  domainId: number | null
  messageId: string
  scheduledAt: string | null
}

export interface EmailEvent {
  status: string
  createdAt: string
  /** What the event says besides its status (a recipient, the server's reply…), as the server recorded it. */
  data: Record<string, unknown> | null
}

export type DeliveryState = 'scheduled' | 'queued' | 'sending' | 'deferred' | 'paused' | 'delivered' | 'bounced' | 'failed' | 'cancelled' | 'suppressed'

/** How the email went for one recipient. */
export interface Delivery {
  recipient: string
  state: DeliveryState
  attempts: number
  lastResponse: string | null
  mx: string | null
  ip: string | null
  tls: { version: string; cipher: string; verified: boolean; mtaSts?: { mode: string; applied: boolean; failure?: string } } | null
  dkimDomains: string[]
  nextAttemptAt: string | null
  updatedAt: string
}

export interface Email extends EmailSummary {
  html: string | null
  text: string | null
  emailEvents: EmailEvent[]
  deliveries: Delivery[]
}

/** One of the checks a receiving server would run (GET …/checks). */
export interface EmailCheck {
  id: string
  name: string
  status: 'pass' | 'warn' | 'fail' | 'info'
  detail: string
}

export interface EmailChecks {
  emailId: string
  /** Whether the first delivery attempt has signed the message yet. */
  signed: boolean
  checks: EmailCheck[]
}

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
