import type { Clock } from '../lib/clock.ts'
import { TtlCache } from '../lib/ttl-cache.ts'

/** Each project's send rate, shared by every process on the database (src/cluster/shared-bucket.ts). */
export interface SendRate {
  /** Whether the project has a token to spend now, taking some from its bucket if this process has none. */
  ready(projectId: number, rate: number): Promise<boolean>
  /** Spends a token `ready` said is there; false when its second has passed since. */
  take(projectId: number): boolean
  /** The projects refused lately: none has a token before its bucket refills. */
  starved(): number[]
}

export interface ProjectTokensDeps {
  sendRate: SendRate
  /** The project's own send rate, emails per second; null or undefined when it has none. */
  rateOf: (projectId: number) => Promise<number | null | undefined>
  /** The rate of a project that has none of its own. */
  defaultRate: number
  clock: Clock
}

/** A project's own rate is read again after this long. */
const RATE_CACHE_MS = 30_000

/**
 * The delivery loop's side of the projects' send rates: each project's rate (read from the
 * project now and then), and a round's view of the tokens, in which a project found without one
 * stays without one for the rest of the round, so that its buffered deliveries are passed over
 * without asking again for each.
 */
export function createProjectTokens(deps: ProjectTokensDeps) {
  const rates = new TtlCache<number>(deps.clock, RATE_CACHE_MS)

  async function rateOf(projectId: number): Promise<number> {
    const known = rates.get(String(projectId))
    if (known !== undefined) return known
    const rate = (await deps.rateOf(projectId)) ?? deps.defaultRate
    rates.set(String(projectId), rate)
    return rate
  }

  return {
    /** The projects refused lately: a claim skips their mail. */
    starved: (): number[] => deps.sendRate.starved(),
    /** A round's view of the tokens. */
    round() {
      const starved = new Set<number>()
      return {
        /** Whether a token of the project's rate is there (without spending it). */
        async ready(projectId: number): Promise<boolean> {
          if (starved.has(projectId)) return false
          if (await deps.sendRate.ready(projectId, await rateOf(projectId))) return true
          starved.add(projectId)
          return false
        },
        /** Spends the token `ready` found; false (and none for the rest of the round) when its second has passed since. */
        take(projectId: number): boolean {
          if (deps.sendRate.take(projectId)) return true
          starved.add(projectId)
          return false
        },
      }
    },
  }
}

export type ProjectTokens = ReturnType<typeof createProjectTokens>
