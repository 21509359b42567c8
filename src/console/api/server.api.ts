import type { ApiClient } from './api-client.ts'
import type { Answer } from './api-types.ts'

/** How applications reach the SMTP relay (GET /api/v1/server/relay). */
export type RelaySettings = Answer<'/api/v1/server/relay', 'get'>

export const serverApi = (api: ApiClient) => ({
  relay: () => api.get<RelaySettings>('/api/v1/server/relay'),
})
