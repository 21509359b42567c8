/**
 * When the delivery loop claims again. A claim that found nothing under some limits (the domains
 * and projects it skipped) finds nothing again under the same ones until new mail is queued or
 * time passes: passing time (the loop's poll) makes the next claim `fresh`; queued mail is worth
 * another claim, but not at every message of a burst, so at most one per `pauseMs` (real time),
 * and none for mail of projects that are all at their rate (their mail is not claimed anyway:
 * looking for it would only read past their whole backlog). A claim held back by the pause comes
 * once it is over, through `wake`.
 */
export function createClaimPacing(options: { pauseMs: number; wake: () => void; now?: () => number }) {
  const now = options.now ?? Date.now
  /** New mail or passing time may have made rows due that the last claim could not see. */
  let fresh = true
  /** The limits under which the last claim found nothing: claiming again under them finds nothing. */
  let emptyUnder: string | undefined
  let emptyAt = 0
  /** Mail was queued since that claim: worth another, but not at every message of a burst. */
  let queuedSince = false
  /** The projects whose mail was queued since that claim, when every caller said (null: unknown). */
  let queuedFor: Set<number> | null = new Set()
  let retry: ReturnType<typeof setTimeout> | undefined

  return {
    /** Time has passed (or the loop starts): the next claim may find rows that came due. */
    fresh(): void {
      fresh = true
    },
    /** Mail was queued (for these projects, if said; null or nothing: for any). */
    queued(projects?: ReadonlySet<number> | null): void {
      queuedSince = true
      if (!projects) queuedFor = null
      else for (const id of projects) queuedFor?.add(id)
    },
    /**
     * Whether to claim now under `limits` (the claim's skips, as a string), the projects at their
     * rate being `starved`. A yes counts as the claim begun: what is queued from here on is news.
     */
    mayClaim(limits: string, starved: readonly number[]): boolean {
      if (!fresh && limits === emptyUnder) {
        const wait = options.pauseMs - (now() - emptyAt)
        if (!queuedSince) return false
        if (queuedFor && [...queuedFor].every((id) => starved.includes(id))) return false
        if (wait > 0) {
          retry ??= setTimeout(() => ((retry = undefined), options.wake()), wait)
          return false
        }
      }
      fresh = false
      queuedSince = false
      queuedFor = new Set()
      return true
    },
    /** The claim under `limits` found `count` rows. */
    claimed(limits: string, count: number): void {
      emptyUnder = count === 0 ? limits : undefined
      emptyAt = now()
    },
    /** Drops a claim waiting for its pause to end. */
    stop(): void {
      clearTimeout(retry)
      retry = undefined
    },
  }
}

export type ClaimPacing = ReturnType<typeof createClaimPacing>
