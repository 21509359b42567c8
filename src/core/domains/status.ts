import type { DomainStatus } from '../../db/schema.ts'
import type { Verdict } from './records.ts'

export interface DomainState {
  status: DomainStatus
  created_at: number
  verified_at: number | null
  failing_since: number | null
}

export type RecordStatus = 'PENDING' | 'SUCCESS' | 'FAILED'

/**
 * Where a domain goes after a check of its required records:
 * - any answer that could not be had (timeout, SERVFAIL): TEMPORARY_FAILURE, until a good check;
 * - all right: SUCCESS;
 * - something wrong, never verified: PENDING within the grace after creation, then FAILED;
 * - something wrong after verification: TEMPORARY_FAILURE for the same grace, then FAILED.
 */
export function nextState(
  current: DomainState,
  required: readonly Verdict[],
  now: number,
  graceMs: number,
): Omit<DomainState, 'created_at'> {
  if (required.some((v) => v.result === 'unavailable')) {
    return { status: 'TEMPORARY_FAILURE', verified_at: current.verified_at, failing_since: current.failing_since }
  }
  if (required.every((v) => v.result === 'ok')) {
    return { status: 'SUCCESS', verified_at: current.verified_at ?? now, failing_since: null }
  }
  if (current.verified_at === null) {
    return { status: now - current.created_at < graceMs ? 'PENDING' : 'FAILED', verified_at: null, failing_since: null }
  }
  const since = current.failing_since ?? now
  return { status: now - since < graceMs ? 'TEMPORARY_FAILURE' : 'FAILED', verified_at: current.verified_at, failing_since: since }
}

/** A record's own status: right, or wrong and still within the domain's grace, or wrong for good. */
export function recordStatus(verdict: Verdict, domain: DomainStatus, previous: RecordStatus | undefined): RecordStatus {
  if (verdict.result === 'ok') return 'SUCCESS'
  if (verdict.result === 'unavailable') return previous ?? 'PENDING'
  return domain === 'FAILED' ? 'FAILED' : 'PENDING'
}
