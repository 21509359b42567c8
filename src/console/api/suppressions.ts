import { fromNumberedList, type Page } from '../lib/paging.ts'
import type { ApiClient } from './client.ts'

/** The project's suppression list (src/http/routes/suppressions.ts), paged by number. */

export interface Suppression {
  email: string
  reason: 'hard_bounce' | 'complaint' | 'manual'
  detail: string | null
  createdAt: string
}

/** What an import did: the API's answer to POST /api/v1/suppressions/import. */
export interface SuppressionImport {
  added: number
  alreadySuppressed: number
  failedCount: number
  /** The first 100 lines that are not an address, with why. */
  failed: { line: number; error: string }[]
}

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
