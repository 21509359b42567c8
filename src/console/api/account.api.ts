import type { ApiClient } from './api-client.ts'
import type { Answer, Schema } from './api-types.ts'

/** The signed-in person's own sessions, password and second factor (src/http/routes/account.routes.ts); changes to the last two need the current password. */

export type AccountSession = Schema<'Session'>

/** The secret (base32), its otpauth:// address and a QR code of it (an SVG document), shown this once. */
export type TotpEnrollment = Answer<'/api/v1/account/totp', 'post'>

/** Whether the second factor is on, and how many recovery codes are left. */
export type SecondFactorState = Answer<'/api/v1/account/totp', 'get'>

/** The second factor turned on, with its ten recovery codes (shown this once). */
export type TotpConfirmed = Answer<'/api/v1/account/totp/confirm', 'post'>

export type NewRecoveryCodes = Answer<'/api/v1/account/totp/recovery-codes', 'post'>

export const accountApi = (api: ApiClient) => ({
  sessions: () => api.get<AccountSession[]>('/api/v1/account/sessions'),
  revokeSession: (id: string) => api.delete<{ success: boolean }>(`/api/v1/account/sessions/${encodeURIComponent(id)}`),
  enrollTotp: (currentPassword: string) => api.post<TotpEnrollment>('/api/v1/account/totp', { currentPassword }),
  secondFactor: () => api.get<SecondFactorState>('/api/v1/account/totp'),
  confirmTotp: (code: string) => api.post<TotpConfirmed>('/api/v1/account/totp/confirm', { code }),
  /** The old codes, used or not, stop working. */
  newRecoveryCodes: (currentPassword: string) => api.post<NewRecoveryCodes>('/api/v1/account/totp/recovery-codes', { currentPassword }),
  disableTotp: (body: { code: string; currentPassword: string }) => api.post<{ totpEnabled: boolean }>('/api/v1/account/totp/disable', body),
  changePassword: (body: { currentPassword: string; password: string }) => api.post<{ account: { id: string; email: string } }>('/api/v1/account/password', body),
})
