import type { Generated } from 'kysely'

/** Someone who signs in to the console. Emails compare by `email_key` (lower-cased, ASCII domain). */
export interface AccountTable {
  id: string
  email: string
  email_key: string
  /** argon2id (Bun.password), PHC string; null until set through a one-time link. */
  password_hash: string | null
  disabled: number
  /** 1 for the server's operator, who sees every project: the first account, or one the CLI made so. */
  instance_owner: Generated<number>
  created_at: number
  updated_at: number
}

/** A signed-in browser. The token is in its cookie only: stored here is its SHA-256. */
export interface AccountSessionTable {
  id: string
  account_id: string
  token_hash: string
  address: string | null
  user_agent: string | null
  created_at: number
  /** Moved at most every few minutes, not at every request. */
  last_seen_at: number
  expires_at: number
}

export type ProjectRole = 'owner' | 'admin' | 'member' | 'viewer'

/** An account's place in a project. */
export interface ProjectMemberTable {
  project_id: number
  account_id: string
  role: ProjectRole
  created_at: number
  updated_at: number
}

/** An invitation to join a project, by link; used once, until `expires_at`. */
export interface ProjectInvitationTable {
  id: string
  project_id: number
  email: string
  email_key: string
  role: ProjectRole
  invited_by: string | null
  created_at: number
  expires_at: number
  accepted_at: number | null
  accepted_by: string | null
}

/** An account's TOTP second factor: enrolled, then confirmed with a code. */
export interface AccountTotpTable {
  account_id: string
  /** The base32 secret, sealed (src/lib/sealed.ts). */
  secret: string
  confirmed_at: number | null
  /** The time step of the last code accepted: a code is accepted once. */
  last_counter: number | null
  created_at: number
}

export interface AccountRecoveryCodeTable {
  account_id: string
  /** SHA-256 of the code as shown, without its dash, in lower case. */
  code_hash: string
  /** When it signed in: a code is used once. */
  used_at: number | null
  created_at: number
}
