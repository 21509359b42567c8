import type { Generated, Kysely } from 'kysely'

/** Booleans are 0/1 and times are epoch milliseconds in SQLite; rows convert at the edges. */
export interface ProjectTable {
  id: Generated<number>
  name: string
  disabled: number
  rate_limit_per_minute: number | null
  created_at: number
  updated_at: number
}

export interface ApiKeyTable {
  id: Generated<number>
  project_id: number
  type: 'secret' | 'public'
  /** The first characters of the key: shown in listings and used to find the row. */
  prefix: string
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string
  created_at: number
  revoked_at: number | null
}

export interface ContactTable {
  id: string
  project_id: number
  email: string
  /** Lower-cased address with an ASCII domain: unique per project. */
  email_key: string
  subscribed: number
  data: string
  created_at: number
  updated_at: number
}

export interface EventTable {
  id: Generated<number>
  project_id: number
  contact_id: string
  name: string
  data: string | null
  created_at: number
}

export type DomainStatus = 'NOT_STARTED' | 'PENDING' | 'SUCCESS' | 'FAILED' | 'TEMPORARY_FAILURE'

export interface DomainTable {
  id: Generated<number>
  project_id: number
  /** ASCII (punycode), lower case. */
  name: string
  region: string
  status: DomainStatus
  return_path_label: string
  dkim_selector: string
  /** Base64 SubjectPublicKeyInfo: what the DKIM record's p= holds. */
  dkim_public_key: string
  /** PKCS#8 PEM, sealed with a key derived from the server secret. */
  dkim_private_key: string
  ed25519_selector: string
  /** Base64 of the raw 32-byte key (RFC 8463). */
  ed25519_public_key: string
  ed25519_private_key: string
  open_tracking: Generated<number>
  click_tracking: Generated<number>
  /** JSON: the findings of the last check, one per record. */
  findings: string | null
  error_message: string | null
  is_verifying: Generated<number>
  last_checked_at: number | null
  next_check_at: number
  verified_at: number | null
  failing_since: number | null
  created_at: number
  updated_at: number
}

export interface MigrationTable {
  name: string
  applied_at: number
}

export interface DB {
  projects: ProjectTable
  api_keys: ApiKeyTable
  contacts: ContactTable
  events: EventTable
  domains: DomainTable
  migrations: MigrationTable
}

/** A database handle: the whole database, or one transaction of it. Services take this first. */
export type Db = Kysely<DB>
