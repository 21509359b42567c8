import type { ApiClient } from './client.ts'

/** The project's settings, members and invitations (src/http/routes/project.ts). */

export type Role = 'owner' | 'admin' | 'member' | 'viewer'
export const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer']

export interface ProjectSettings {
  id: number
  name: string
  disabled: boolean
  /** Its mail is simulated and never leaves the server. */
  sandbox: boolean
  rateLimitPerMinute: number | null
  defaultSender: string | null
  /** Emails per second; null for the server's rate. */
  sendRatePerSecond: number | null
  createdAt: string
  updatedAt: string
  /** The caller's role (GET only). */
  role?: string
}

export interface SettingsChange {
  name?: string
  defaultSender?: string | null
  sendRatePerSecond?: number | null
  sandbox?: boolean
}

export interface Member {
  accountId: string
  email: string
  role: Role
  createdAt: string
  updatedAt: string
}

export interface Invitation {
  id: string
  email: string
  role: Role
  createdAt: string
  expiresAt: string
}

export const projectApi = (api: ApiClient) => ({
  get: () => api.get<ProjectSettings>('/api/v1/project'),
  update: (change: SettingsChange) => api.patch<ProjectSettings>('/api/v1/project', change),
  remove: () => api.delete<{ id: number; success: boolean }>('/api/v1/project'),
  members: () => api.get<Member[]>('/api/v1/project/members'),
  changeRole: (accountId: string, role: Role) => api.patch<Member>(`/api/v1/project/members/${encodeURIComponent(accountId)}`, { role }),
  removeMember: (accountId: string) => api.delete<{ success: boolean }>(`/api/v1/project/members/${encodeURIComponent(accountId)}`),
  invitations: () => api.get<Invitation[]>('/api/v1/project/invitations'),
  /** The answer's `link` is shown this once. */
  invite: (body: { email: string; role: Role }) => api.post<Invitation & { link: string }>('/api/v1/project/invitations', body),
  revokeInvitation: (id: string) => api.delete<{ success: boolean }>(`/api/v1/project/invitations/${encodeURIComponent(id)}`),
})
