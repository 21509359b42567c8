import type { ApiClient } from './client.ts'

/*
 * The accounts API as the console calls it (routes in src/http/routes/auth.ts, account.ts and
 * invitations.ts): every path of signing in and out, first-run setup and password links is here,
 * so that a change there is made in one place.
 */

export interface Account {
  id: string
  email: string
  totpEnabled?: boolean
}

/** What a sign-in, a setup or GET /session gives: the account and the session's CSRF token. */
export interface SignedIn {
  account: Account
  csrfToken: string
  expiresAt: string
}

export interface MyProject {
  id: number
  name: string
  disabled: boolean
  role: string
  /** A sandbox project's mail never leaves the server (optional until every server answers it). */
  sandbox?: boolean
}

export interface NewProject {
  id: number
  name: string
  role: string
  /** Shown this once. */
  secretKey: string
  publicKey: string
}

export interface InvitationInfo {
  email: string
  role: string
  projectId: number
  projectName: string
  expiresAt: string
}

export const authApi = (api: ApiClient) => ({
  session: () => api.get<SignedIn>('/api/v1/auth/session'),
  setupOpen: () => api.get<{ open: boolean }>('/api/v1/auth/setup'),
  setup: (body: { token: string; email: string; password: string }) => api.post<SignedIn>('/api/v1/auth/setup', body),
  /** `code` only for an account with a second factor (the API asks with 401 TOTP_REQUIRED). */
  signIn: (body: { email: string; password: string; code?: string }) => api.post<SignedIn>('/api/v1/auth/sign-in', body),
  signOut: () => api.post<{ success: boolean }>('/api/v1/auth/sign-out'),
  setPassword: (body: { token: string; password: string }) => api.post<{ account: Account }>('/api/v1/auth/password', body),
  lookUpInvitation: (token: string) => api.post<InvitationInfo>('/api/v1/invitations/lookup', { token }),
  acceptInvitation: (body: { token: string; password?: string }) => api.post<{ projectId: number; csrfToken?: string }>('/api/v1/invitations/accept', body),
  myProjects: () => api.get<MyProject[]>('/api/v1/account/projects'),
  createProject: (name: string) => api.post<NewProject>('/api/v1/account/projects', { name }),
})

export type AuthApi = ReturnType<typeof authApi>

/** The API's code for a sign-in that needs the authenticator app's code. */
export const TOTP_REQUIRED = 'TOTP_REQUIRED'
