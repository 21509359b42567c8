import { fromNumberedList, type Page } from '../lib/paging.ts'
import type { ApiClient } from './client.ts'

/** The project's suppression list (src/http/routes/suppressions.ts), paged by number. */

export interface Suppression {
  email: string
  reason: 'hard_bounce' | 'complaint' | 'manual'
  detail: string | null
  createdAt: string
}

export const suppressionsApi = (api: ApiClient) => ({
  page: async (cursor: string | null, size: number): Promise<Page<Suppression>> => {
    const { data, count } = await api.get<{ data: Suppression[]; count: number }>('/api/v1/suppressions', { page: cursor ?? 1, limit: size })
    return fromNumberedList(data, count, cursor, size)
  },
  add: (body: { email: string; detail?: string }) => api.post<Suppression>('/api/v1/suppressions', body),
  remove: (email: string) => api.delete<{ success: boolean }>(`/api/v1/suppressions/${encodeURIComponent(email)}`),
})
