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

export interface MigrationTable {
  name: string
  applied_at: number
}

export interface DB {
  projects: ProjectTable
  api_keys: ApiKeyTable
  contacts: ContactTable
  events: EventTable
  migrations: MigrationTable
}

/** A database handle: the whole database, or one transaction of it. Services take this first. */
export type Db = Kysely<DB>
