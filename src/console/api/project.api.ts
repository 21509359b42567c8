import type { ApiClient } from './api-client.ts'
import type { Answer, RequestBody, Schema } from './api-types.ts'

/** The project's settings, members and invitations (src/http/routes/project.routes.ts). */

export type Role = 'owner' | 'admin' | 'member' | 'viewer'
export const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer']

/** The roles that may change the project's settings, its name included (src/core/accounts/roles.ts decides; the console only hides what would be refused). */
export const SETTINGS_EDITORS: readonly string[] = ['owner', 'admin']

export type ProjectSettings = Answer<'/api/v1/project', 'get'>

export type SettingsChange = RequestBody<'/api/v1/project', 'patch'>

export type Member = Schema<'Member'>

export type Invitation = Schema<'Invitation'>

/** An invitation just made: its link (shown this once) and whether the server emailed it. */
export type NewInvitation = Answer<'/api/v1/project/invitations', 'post'>

export const projectApi = (api: ApiClient) => ({
  get: () => api.get<ProjectSettings>('/api/v1/project'),
  update: (change: SettingsChange) => api.patch<ProjectSettings>('/api/v1/project', change),
  remove: () => api.delete<{ id: number; success: boolean }>('/api/v1/project'),
  members: () => api.get<Member[]>('/api/v1/project/members'),
  changeRole: (accountId: string, role: Role) => api.patch<Member>(`/api/v1/project/members/${encodeURIComponent(accountId)}`, { role }),
  removeMember: (accountId: string) => api.delete<{ success: boolean }>(`/api/v1/project/members/${encodeURIComponent(accountId)}`),
  invitations: () => api.get<Invitation[]>('/api/v1/project/invitations'),
  /** The answer's `link` is shown this once; `emailed` says whether the invitee's server took it. */
  invite: (body: { email: string; role: Role }) => api.post<NewInvitation>('/api/v1/project/invitations', body),
  revokeInvitation: (id: string) => api.delete<{ success: boolean }>(`/api/v1/project/invitations/${encodeURIComponent(id)}`),
})
