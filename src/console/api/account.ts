import type { ApiClient } from './client.ts'

/** The signed-in person's own sessions, password and second factor (src/http/routes/account.ts); changes to the last two need the current password. */

export interface AccountSession {
  id: string
  /** The session this request is made with. */
  current: boolean
  address: string | null
  userAgent: string | null
  createdAt: string
  lastSeenAt: string
  expiresAt: string
}

export interface TotpEnrollment {
  /** Base32, shown this once. */
  secret: string
  /** otpauth://totp/…, shown this once. */
  uri: string
}

export const accountApi = (api: ApiClient) => ({
  sessions: () => api.get<AccountSession[]>('/api/v1/account/sessions'),
  revokeSession: (id: string) => api.delete<{ success: boolean }>(`/api/v1/account/sessions/${encodeURIComponent(id)}`),
  enrollTotp: (currentPassword: string) => api.post<TotpEnrollment>('/api/v1/account/totp', { currentPassword }),
  confirmTotp: (code: string) => api.post<{ totpEnabled: boolean }>('/api/v1/account/totp/confirm', { code }),
  disableTotp: (body: { code: string; currentPassword: string }) => api.post<{ totpEnabled: boolean }>('/api/v1/account/totp/disable', body),
  changePassword: (body: { currentPassword: string; password: string }) => api.post<{ account: { id: string; email: string } }>('/api/v1/account/password', body),
})
