import type { ApiClient } from './api-client.ts'
import type { Answer, Schema } from './api-types.ts'

/*
 * The accounts API as the console calls it (routes in src/http/routes/auth.routes.ts, account.routes.ts and
 * invitations.routes.ts): every path of signing in and out, first-run setup and password links is here,
 * so that a change there is made in one place.
 */

/** GET /session's answer: the account with whether it has a second factor. */
type Session = Answer<'/api/v1/auth/session', 'get'>

/**
 * Who is signed in, as a sign-in's answer (Account) or GET /session's (which adds totpEnabled)
 * gives it: the console keeps either in one place.
 */
export type Account = Pick<Schema<'Account'>, 'id' | 'email'> & Partial<Session['account']>

/** What a sign-in, a setup or GET /session gives: the account and the session's CSRF token. */
export type SignedIn = Omit<Schema<'SignedIn'>, 'account'> & { account: Account }

export type MyProject = Schema<'MyProject'>

/** A project just made, with its keys (shown this once). */
export type NewProject = Answer<'/api/v1/account/projects', 'post'>

export type InvitationInfo = Answer<'/api/v1/invitations/lookup', 'post'>

export const authApi = (api: ApiClient) => ({
  session: () => api.get<Session>('/api/v1/auth/session'),
  setupOpen: () => api.get<{ open: boolean }>('/api/v1/auth/setup'),
  setup: (body: { token: string; email: string; password: string }) => api.post<SignedIn>('/api/v1/auth/setup', body),
  /** `code` only for an account with a second factor (the API asks with 401 TOTP_REQUIRED). */
  signIn: (body: { email: string; password: string; code?: string }) => api.post<SignedIn>('/api/v1/auth/sign-in', body),
  signOut: () => api.post<{ success: boolean }>('/api/v1/auth/sign-out'),
  setPassword: (body: { token: string; password: string }) => api.post<{ account: Account }>('/api/v1/auth/password', body),
  lookUpInvitation: (token: string) => api.post<InvitationInfo>('/api/v1/invitations/lookup', { token }),
  acceptInvitation: (body: { token: string; password?: string }) => api.post<{ projectId: number; csrfToken?: string }>('/api/v1/invitations/accept', body),
  myProjects: () => api.get<MyProject[]>('/api/v1/account/projects'),
  createProject: (body: { name: string; sandbox?: boolean }) => api.post<NewProject>('/api/v1/account/projects', body),
})

export type AuthApi = ReturnType<typeof authApi>

/** The API's code for a sign-in that needs the authenticator app's code. */
export const TOTP_REQUIRED = 'TOTP_REQUIRED'
