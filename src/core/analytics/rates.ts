import type { Counts } from './counters.ts'

/** What was sent and the two rates the bulk-sender rules are about, in per cent (three decimals). */
export interface SendRates {
  /** Delivered plus bounced at an attempt. */
  sent: number
  /** Complaints in per cent of delivered. */
  complaintRate: number
  /** Hard bounces in per cent of sent. */
  hardBounceRate: number
}

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 100_000) / 1000)

/** What was sent (delivered or bounced at an attempt) and the rates the limits are about, in per cent. */
export function ratesOf(counts: Counts): SendRates {
  const sent = counts.delivered + counts.bounced
  return { sent, complaintRate: percent(counts.complained, counts.delivered), hardBounceRate: percent(counts.hardBounced, sent) }
}
