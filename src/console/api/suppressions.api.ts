import { fromNumberedList, type Page } from '../lib/cursor-pager.ts'
import type { ApiClient } from './api-client.ts'
import type { Answer, Schema } from './api-types.ts'

/** The project's suppression list (src/http/routes/suppressions.routes.ts), paged by number. */

export type Suppression = Schema<'Suppression'>

/** What an import did: the API's answer to POST /api/v1/suppressions/import. */
export type SuppressionImport = Answer<'/api/v1/suppressions/import', 'post'>

export const suppressionsApi = (api: ApiClient) => ({
  /** One page, newest first; `search` keeps the addresses containing it. */
  page: async (cursor: string | null, size: number, search?: string): Promise<Page<Suppression>> => {
    const { data, count } = await api.get<{ data: Suppression[]; count: number }>('/api/v1/suppressions', { page: cursor ?? 1, limit: size, search })
    return fromNumberedList(data, count, cursor, size)
  },
  add: (body: { email: string; detail?: string }) => api.post<Suppression>('/api/v1/suppressions', body),
  /** Suppresses every address of a CSV file, sent as the field "file" of a form. */
  import: (file: File) => {
    const form = new FormData()
    form.set('file', file)
    return api.upload<SuppressionImport>('/api/v1/suppressions/import', form)
  },
  remove: (email: string) => api.delete<{ success: boolean }>(`/api/v1/suppressions/${encodeURIComponent(email)}`),
})
