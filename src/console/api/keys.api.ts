import type { ApiClient } from './api-client.ts'
import type { Schema } from './api-types.ts'

/** The project's API keys (src/http/routes/project.routes.ts): listed never whole, shown whole once at creation. */

export type KeyType = ApiKey['type']

export type ApiKey = Schema<'ApiKey'>

export type KeyScope = ApiKey['scope']

/** What a new key is made with: its name, its type and, for a secret key, its scope and expiry. */
export interface NewKey {
  name: string
  type: KeyType
  scope?: KeyScope
  /** An ISO date and time; none for a key that never expires. */
  expiresAt?: string
}

export const keysApi = (api: ApiClient) => ({
  list: () => api.get<ApiKey[]>('/api/v1/keys'),
  /** The answer's `key` is the whole key, this once. */
  create: (key: NewKey) => api.post<ApiKey>('/api/v1/keys', key),
  revoke: (id: number) => api.delete<ApiKey>(`/api/v1/keys/${id}`),
})
