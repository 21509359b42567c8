/** A singleton's lease: held by `owner` (a process) until `expires_at` unless renewed. */
export interface LeaseTable {
  name: string
  owner: string
  expires_at: number
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
