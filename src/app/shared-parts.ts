import type { Config, Role } from '../config/config-schema.ts'
import type { Claiming } from '../db/claims.ts'
import type { Db } from '../db/schema.ts'
import type { Writer } from '../db/writer.ts'
import type { RateLimits } from '../cluster/rate-limits.ts'
import type { Clock } from '../lib/clock.ts'
import type { Resolver } from '../lib/dns.ts'
import type { Logger } from '../lib/logger.ts'
import type { Registry } from '../lib/metrics.ts'

/** What every subsystem's wiring takes: the settings, the database, and the tools the whole process shares. */
export interface SharedParts {
  config: Config
  db: Db
  /** The writer's `run`: every write of the process goes through the one writer. */
  write: Writer['run']
  clock: Clock
  logger: Logger
  resolver: Resolver
  /** Every part records into it; GET /metrics (with metricsToken) shows it. */
  metrics: Registry
  /** This process, as its claims of work rows and its singleton leases name it. */
  claimant: Claiming
  /** Request budgets, the login throttle and send rates, shared by every process on the database. */
  rateLimits: RateLimits
}

/** Whether this process has the role (the role setting lists them). */
export const runs = (config: Config, role: Role) => config.role.includes(role)
