import type { ApiClient } from './client.ts'

/** How applications reach the SMTP relay (GET /api/v1/server/relay). */
export interface RelaySettings {
  host: string
  listenAddress: string
  ports: { port: number; security: 'STARTTLS' | 'TLS'; state: 'up' | 'down' | 'off' }[]
  authMethods: string[]
  authBeforeTls: boolean
  certificate: 'configured' | 'self-signed'
  maxMessageBytes: number
  maxRecipients: number
}

export const serverApi = (api: ApiClient) => ({
  relay: () => api.get<RelaySettings>('/api/v1/server/relay'),
})
