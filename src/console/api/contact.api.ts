import type { ApiClient } from './api-client.ts'
import type { Answer, Item, Schema } from './api-types.ts'

/**
 * One contact and what its page shows (src/http/routes/contacts.routes.ts and
 * contact-records.routes.ts): the contact, its events, emails, segments and books with their
 * consents, workflow runs; its privacy export and erasure.
 */

export type Contact = Schema<'Contact'>
export type ContactEvent = Schema<'ContactEvent'>
export type ContactEmail = Schema<'ContactEmail'>
export type Memberships = Schema<'ContactMemberships'>
export type BookMembership = Item<Memberships['books']>
export type SegmentMembership = Item<Memberships['segments']>
export type WorkflowRun = Schema<'ContactWorkflowRun'>
export type Erased = Schema<'ContactErased'>
export type EventPage = Answer<'/contacts/{id}/events', 'get'>

/** What PATCH /contacts/{id} takes: data is merged, a null value removes its key. */
export interface ContactPatch {
  subscribed?: boolean
  data?: Record<string, unknown>
}

const path = (id: string) => `/contacts/${encodeURIComponent(id)}`

export const contactApi = (api: ApiClient) => ({
  get: (id: string) => api.get<Contact>(path(id)),
  update: (id: string, patch: ContactPatch) => api.patch<Contact>(path(id), patch),
  /** A page of its events, newest first; `cursor` from the previous page. */
  events: (id: string, cursor: string | null, limit = 50) => api.get<EventPage>(`${path(id)}/events`, { limit, ...(cursor && { cursor }) }),
  emails: (id: string, page: number, limit = 20) => api.get<{ data: ContactEmail[]; count: number }>(`${path(id)}/emails`, { page, limit }),
  memberships: (id: string) => api.get<Memberships>(`${path(id)}/memberships`),
  runs: (id: string, page: number, limit = 20) => api.get<{ executions: WorkflowRun[]; total: number }>(`${path(id)}/runs`, { page, limit }),
  /** Everything held about it, as the JSON text the server attaches. */
  privacyExport: async (id: string) => (await api.blob(`${path(id)}/privacy-export`)).text(),
  erase: (id: string) => api.post<Erased>(`${path(id)}/erase`),
})
