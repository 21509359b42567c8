import type { ApiClient } from './client.ts'

/** The project's API keys (src/http/routes/project.ts): listed never whole, shown whole once at creation. */

export type KeyType = 'secret' | 'public'

export interface ApiKey {
  id: number
  projectId: number
  type: KeyType
  /** Its first characters only, with an ellipsis: "sk_AbCdEfGh…". */
  key: string
  createdAt: string
  revokedAt: string | null
}

export const keysApi = (api: ApiClient) => ({
  list: () => api.get<ApiKey[]>('/api/v1/keys'),
  /** The answer's `key` is the whole key, this once. */
  create: (type: KeyType) => api.post<ApiKey>('/api/v1/keys', { type }),
  revoke: (id: number) => api.delete<ApiKey>(`/api/v1/keys/${id}`),
})
