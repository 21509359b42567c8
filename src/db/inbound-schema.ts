import type { Generated } from 'kysely'

/*
 * The table of reports the MX listener received (migration 0016). Its conventions are schema.ts's
 * (epoch-ms times, JSON in text); it gathers it into the database type.
 */

/** What became of a received report: applied, seen before, nothing to do, or not proven. */
export type ReceivedOutcome = 'applied' | 'duplicate' | 'ignored' | 'untrusted'

/** One bounce or complaint received, kept for the operator whatever became of it. */
export interface ReceivedReportTable {
  id: Generated<number>
  received_at: number
  remote_address: string | null
  /** The envelope sender; '' for the null sender (<>). */
  mail_from: string
  /** JSON array: the envelope recipients it was taken for. */
  rcpt_to: string
  /** dsn, arf, plain-bounce or other. */
  kind: string
  subject: string | null
  /** The report's own Message-ID. */
  message_id: string | null
  outcome: ReceivedOutcome
  /** Why it changed nothing, in words; null when it was applied. */
  reason: string | null
  /** JSON array of verdicts: { deliveryId, effect?, result, reason? }. */
  verdicts: string
  /** The message's first bytes (RAW_KEPT in the repository). */
  raw: Uint8Array
  raw_size: number
}

/** A received report's link to a project whose delivery it named (migration 0040). */
export interface ReceivedReportProjectTable {
  project_id: number
  report_id: number
}
