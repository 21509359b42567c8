import { addressOf, parseFieldGroups, untyped } from './report-fields.ts'

/** What the fields of a message/feedback-report part say (RFC 5965 §3.1, RFC 6650). */
export interface FeedbackReport {
  /** Feedback-Type, lower case: abuse, fraud, virus, not-spam, auth-failure, other; "unknown" when absent. */
  feedbackType: string
  userAgent: string | null
  /** The first Original-Rcpt-To, without angle brackets, as written. */
  originalRcptTo: string | null
  /** Original-Mail-From without angle brackets: the envelope sender of what was reported. */
  originalMailFrom: string | null
  /** Reporting-MTA without its type. */
  reportingMta: string | null
}

/**
 * The fields of a message/feedback-report part. The report is one group of fields; reporters
 * that put blank lines in it are read as if they had not (the first of a repeated field wins).
 */
export function parseFeedbackReport(text: string): FeedbackReport {
  const groups = parseFieldGroups(text)
  const field = (name: string) => groups.find((group) => group.has(name))?.get(name)
  return {
    feedbackType: field('feedback-type')?.toLowerCase() || 'unknown',
    userAgent: field('user-agent') || null,
    originalRcptTo: addressOf(field('original-rcpt-to')),
    originalMailFrom: addressOf(field('original-mail-from')),
    reportingMta: untyped(field('reporting-mta')),
  }
}
