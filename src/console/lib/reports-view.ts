import type { DmarcSource, ReceivedReport, ReportAction, ReportKind } from '../api/reports.api.ts'
import type { Tone } from '../components/Badge.tsx'
import { showRate } from './overview-view.ts'

/** How the Reports page reads the API's reports: periods, rates and the words for what happened. */

/** The periods the DMARC summary covers, each ending today (UTC). */
export const PERIODS = [
  { id: '7', days: 7, label: '7 days' },
  { id: '30', days: 30, label: '30 days' },
  { id: '90', days: 90, label: '90 days' },
] as const
export type PeriodId = (typeof PERIODS)[number]['id']
export const DEFAULT_PERIOD: PeriodId = '30'

export const periodOf = (id: string) => PERIODS.find((p) => p.id === id) ?? PERIODS[1]

/** The first day (UTC, YYYY-MM-DD) of a period of `days` ending on the day of `now`. */
export function periodStart(days: number, now: number): string {
  return new Date(now - (days - 1) * 86_400_000).toISOString().slice(0, 10)
}

/** `part` of `whole` as a rate a person reads ("80 %"), or "–" when there is no whole. */
export const rateOf = (part: number, whole: number) => showRate(whole === 0 ? null : (part / whole) * 100)

/** A count with its noun: "1 source", "3 sources". */
export const counted = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`

/** What a source of a domain's mail is, for its badge: this server, or another that passes or fails DMARC. */
export function sourceStanding(source: Pick<DmarcSource, 'thisServer' | 'dmarcPass' | 'messages'>): { label: string; tone: Tone } {
  if (source.thisServer) return { label: 'This server', tone: 'ok' }
  if (source.dmarcPass === source.messages) return { label: 'Not this server, passes', tone: 'warn' }
  return { label: 'Not this server, fails', tone: 'bad' }
}

/** What receivers did with a source's mail, as DMARC's policy asked: "Delivered", "3 quarantined, 1 rejected". */
export function dispositionOf(source: Pick<DmarcSource, 'quarantined' | 'rejected' | 'messages'>): string {
  const parts = [source.quarantined > 0 && `${source.quarantined.toLocaleString()} quarantined`, source.rejected > 0 && `${source.rejected.toLocaleString()} rejected`].filter(Boolean)
  return parts.length === 0 ? 'None (delivered)' : parts.join(', ')
}

/** A check's results among a source's messages: "10 pass, 10 aligned". */
export const checkOf = (pass: number, aligned: number, messages: number) => (pass === messages && aligned === messages ? 'All pass, aligned' : `${pass.toLocaleString()} pass, ${aligned.toLocaleString()} aligned`)

/** The rua address a domain's _dmarc record sends reports to, from the records the server lists for it. */
export function dmarcRecordOf(records: ReadonlyArray<{ type: string; name: string; value: string }>): { name: string; value: string } | undefined {
  return records.find((r) => r.type === 'TXT' && r.name.startsWith('_dmarc'))
}

export const KINDS: Array<{ id: ReportKind; label: string }> = [
  { id: 'dsn', label: 'Bounce' },
  { id: 'plain-bounce', label: 'Bounce (plain text)' },
  { id: 'arf', label: 'Complaint' },
]

/** A report's kind as a person says it. */
export const kindLabel = (kind: string) => KINDS.find((k) => k.id === kind)?.label ?? 'Other'

const EFFECTS: Record<string, string> = { 'hard-bounce': 'Hard bounce', bounce: 'Soft bounce', delay: 'Delay', complaint: 'Complaint' }
/** What the report said of the recipient, in a word or two. */
export const effectLabel = (effect: string | null) => (effect ? (EFFECTS[effect] ?? effect) : 'Nothing to act on')

/** What Mailstead did about one recipient, in a badge: its words and tone. */
export function actionBadge(action: Pick<ReportAction, 'action' | 'result'>): { label: string; tone: Tone } {
  if (action.action === 'suppressed') return { label: 'Suppressed', tone: 'bad' }
  if (action.action === 'recorded') return { label: 'Recorded', tone: 'info' }
  if (action.result === 'duplicate') return { label: 'Already done', tone: 'neutral' }
  return { label: action.result === 'untrusted' ? 'Ignored, not trusted' : 'Ignored', tone: 'warn' }
}

/** A report with no action of the project's (it named the delivery but changed nothing for it): the report's own reason. */
export const reportReason = (report: Pick<ReceivedReport, 'reason' | 'outcome'>) => report.reason ?? (report.outcome === 'applied' ? 'Applied' : 'Nothing changed')
