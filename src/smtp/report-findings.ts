import type { ReportFacts } from '../core/emails/feedback.ts'
import { classifyReply } from '../delivery/classify.ts'
import type { InboundReport } from './report.ts'

export type Effect = 'bounce' | 'hard-bounce' | 'delay' | 'complaint'

/** One thing a report says about one recipient. */
export interface Finding {
  /** The addresses it says it is about: one of them must be the delivery's recipient. */
  names: string[]
  effect: Effect
  /** What tells it from another finding of the same effect: a status code, a feedback type. */
  detail: string
  facts: ReportFacts
}

export type ActionableReport = Exclude<InboundReport, { kind: 'other' }>

/**
 * What a report says, one finding per recipient it is about, each with the addresses that say
 * whom: a DSN's Final-Recipient and Original-Recipient (not the returned message's To, which
 * names every recipient); an ARF's Original-Rcpt-To, or when it has none the original's To and
 * Cc; the addresses a plain bounce's notice quotes.
 */
export function findingsOf(report: ActionableReport): Finding[] {
  if (report.kind === 'arf') {
    const facts = { feedbackType: report.feedbackType, reportingMta: report.reportingMta ?? report.userAgent, source: 'arf' }
    const names = report.originalRcptTo ? [report.originalRcptTo] : report.original.to
    return [{ names, effect: 'complaint', detail: report.feedbackType, facts }]
  }
  if (report.kind === 'plain-bounce') return plainFindings(report)
  return report.recipients.flatMap((r): Finding[] => {
    const failed = r.action === 'failed' && !r.status?.startsWith('4.')
    const delayed = r.action === 'delayed' || (r.action === 'failed' && r.status?.startsWith('4.'))
    if (!failed && !delayed) return []
    const facts = { action: r.action, status: r.status, diagnostic: r.diagnostic, remoteMta: r.remoteMta, reportingMta: report.reportingMta, source: 'dsn' }
    const names = [r.recipient, r.originalRecipient].filter((name): name is string => Boolean(name))
    return [{ names, effect: failed ? 'hard-bounce' : 'delay', detail: r.status ?? '', facts }]
  })
}

function plainFindings(report: Extract<InboundReport, { kind: 'plain-bounce' }>): Finding[] {
  const code = Number(/\b([45]\d\d)\b/.exec(report.text)?.[1] ?? 550)
  const enhanced = /\b([45]\.\d{1,3}\.\d{1,3})\b/.exec(report.text)?.[1]
  const outcome = classifyReply({ code, enhanced, text: report.text })
  if (outcome.kind === 'delivered') return []
  const facts = { status: enhanced ?? null, diagnostic: report.text.slice(0, 500), category: outcome.category, source: 'plain' }
  const effect: Effect = outcome.kind === 'deferred' ? 'delay' : outcome.hard ? 'hard-bounce' : 'bounce'
  return [{ names: report.quoted, effect, detail: enhanced ?? String(code), facts }]
}

/**
 * What a finding is about, for applying it once: the delivery, the effect and its detail. The
 * report's own Message-ID is not part of it, so the same bounce sent again under a new one
 * (or as a plain bounce after a DSN) changes nothing more.
 */
export const fingerprintOf = (deliveryId: number, finding: Finding) => `delivery:${deliveryId}|${finding.effect}|${finding.detail}`
