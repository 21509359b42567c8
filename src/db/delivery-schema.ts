/** A destination site: a set of MX hosts (or a provider's), with its shaping and warm-up state. */
export interface DeliverySiteTable {
  name: string
  /** The rule it matched (gmail, microsoft, ...); null for any other site. */
  provider: string | null
  /** JSON: the MX hosts last seen. */
  mx_hosts: string
  /** Warm-up counts its days from the first delivery here. */
  first_delivery_at: number | null
  /** The start of the UTC day that day_count counts. */
  day_start: number | null
  day_count: number
  /** Attempts in the minute before updated_at. */
  rate_per_minute: number
  /** Limits halved this many times by replies that said "slow down". */
  throttle_level: number
  /** The rate per minute the halving started from. */
  throttle_base_rate: number | null
  /** The end of the quiet period after which a level comes back. */
  throttle_until: number | null
  /** How long each quiet period lasts: the duration of the rule that throttled. */
  throttle_step_ms: number | null
  throttle_reason: string | null
  suspended_until: number | null
  suspension_reason: string | null
  updated_at: number
}

/** Which site a destination domain was last found to be. */
export interface DeliverySiteDomainTable {
  domain: string
  site: string
  updated_at: number
}

/** Server-wide facts kept with the data: `warmup` (on or off, decided when the data directory was new). */
export interface ServerSettingTable {
  key: string
  value: string
}
