/**
 * What a self-check found, in words: the server's reputation checks, the doctor's port and
 * certificate checks. `unchecked` is a check that could not be made (a DNS server that refused or
 * did not answer): never a pass, never a failure.
 */
export type FindingStatus = 'ok' | 'warning' | 'failed' | 'unchecked' | 'skipped'

export interface Finding {
  /** What was checked: `ptr`, `blocklist`, `spf`, ... */
  check: string
  /** What it was checked for: an IP address, a domain, `zen.spamhaus.org 192.0.2.1`. */
  subject: string
  status: FindingStatus
  /** One sentence that says what was found. */
  message: string
  /** How to put it right, when it is not ok. */
  fix?: string
}

export const finding = (check: string, subject: string, status: FindingStatus, message: string, fix?: string): Finding =>
  fix === undefined ? { check, subject, status, message } : { check, subject, status, message, fix }

/** Findings that need someone's attention: failures, warnings and checks that could not be made. */
export const needsAttention = (f: Finding) => f.status === 'failed' || f.status === 'warning' || f.status === 'unchecked'

/** How many findings of each status. */
export function countByStatus(findings: readonly Finding[]): Record<FindingStatus, number> {
  const counts: Record<FindingStatus, number> = { ok: 0, warning: 0, failed: 0, unchecked: 0, skipped: 0 }
  for (const f of findings) counts[f.status]++
  return counts
}

/**
 * The findings that need attention as short sentences, for /health: at most `max`, the failures
 * first, then a last one that counts the rest.
 */
export function warningSentences(findings: readonly Finding[], max = 20): string[] {
  const order: Record<FindingStatus, number> = { failed: 0, warning: 1, unchecked: 2, ok: 3, skipped: 3 }
  const sentences = findings
    .filter(needsAttention)
    .sort((a, b) => order[a.status] - order[b.status])
    .map((f) => f.message)
  if (sentences.length <= max) return sentences
  return [...sentences.slice(0, max - 1), `${sentences.length - max + 1} more findings: run "mailstead doctor" to see them all.`]
}

/**
 * The sentences /health shows anyone who can reach it: the SPF findings name every project's
 * sending domains, so those that need attention are only counted there.
 */
export function publicWarnings(findings: readonly Finding[], max = 20): string[] {
  const spf = findings.filter((f) => f.check === 'spf' && needsAttention(f)).length
  const sentences = warningSentences(findings.filter((f) => f.check !== 'spf'), spf > 0 ? max - 1 : max)
  if (spf === 0) return sentences
  return [...sentences, `${spf} SPF ${spf === 1 ? 'check needs' : 'checks need'} attention: "mailstead doctor" or GET /api/v1/server/checks names the domains.`]
}
