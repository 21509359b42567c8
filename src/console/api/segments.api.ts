import type { Condition } from '../lib/segment-builder.ts'
import type { ApiClient } from './api-client.ts'
import type { Answer, RequestBody, Schema } from './api-types.ts'

/** The project's segments (src/http/routes/segments.routes.ts, mounted at /segments). */

export type Segment = Schema<'Segment'>
export type SegmentPreview = Schema<'SegmentPreview'>
export type SegmentInput = RequestBody<'/segments', 'post'>
export type SegmentPatch = RequestBody<'/segments/{id}', 'patch'>
export type SegmentMembers = Answer<'/segments/{id}/contacts', 'get'>

const at = (id: string) => `/segments/${encodeURIComponent(id)}`

export const segmentsApi = (api: ApiClient) => ({
  list: () => api.get<Segment[]>('/segments'),
  get: (id: string) => api.get<Segment>(at(id)),
  create: (body: SegmentInput) => api.post<Segment>('/segments', body),
  update: (id: string, patch: SegmentPatch) => api.patch<Segment>(at(id), patch),
  remove: (id: string) => api.delete<{ id: string; success: boolean }>(at(id)),
  /** How many contacts a condition matches now, and the newest ten: nothing is saved. */
  preview: (condition: Condition) => api.post<SegmentPreview>('/segments/preview', { condition }),
  members: (id: string, page: number, pageSize: number) => api.get<SegmentMembers>(`${at(id)}/contacts`, { page, pageSize }),
  addMembers: (id: string, emails: string[]) => api.post<Segment>(`${at(id)}/members`, { emails }),
  removeMembers: (id: string, contactIds: string[]) => api.request<Segment>('DELETE', `${at(id)}/members`, { body: { contactIds } }),
})
