/** A singleton's lease: held by `owner` (a process) until `expires_at` unless renewed. */
export interface LeaseTable {
  name: string
  owner: string
  expires_at: number
}

/**
 * The claim of a work row (src/db/claims.ts): the process working on it, and until when its lease
 * runs unless renewed. Both null while the row waits.
 */
export interface Claimable {
  claimed_by: string | null
  lease_until: number | null
}

/**
 * A rate limit shared by the processes: one budget's state for one key (a project, an address),
 * replaced by compare-and-set on `version`. Nothing in it counts after `expires_at`.
 */
export interface RateLimitTable {
  budget: string
  key: string
  state: string
  version: number
  expires_at: number
}
