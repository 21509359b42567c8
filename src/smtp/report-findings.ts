import type { ReportFacts } from '../core/emails/feedback.ts'
import type { Fingerprint } from '../core/inbound/index.ts'
import { classifyReply, type Outcome } from '../delivery/classify.ts'
import type { InboundReport } from './inbound-report.ts'

export type Effect = 'bounce' | 'hard-bounce' | 'delay' | 'complaint'

/** One thing a report says about one recipient. */
export interface Finding {
  /**
   * The addresses it says it is about. A bounce must name the delivery's recipient among them; a
   * complaint must not name someone else, but may name no one (feedback loops hide the recipient).
   */
  names: string[]
  effect: Effect
  /** What the report said (status, diagnostic, feedback type): kept in the event, never part of the fingerprint. */
  facts: ReportFacts
}

export type ActionableReport = Exclude<InboundReport, { kind: 'other' }>

/**
 * What a report says, one finding per recipient it is about, each with the addresses that say
 * whom: a DSN's Final-Recipient and Original-Recipient (not the returned message's To, which
 * names every recipient); an ARF's Original-Rcpt-To alone (the original's To and Cc say whom
 * the message was shown to: a Bcc recipient is in neither, a co-recipient in both); the
 * addresses a plain bounce's notice quotes.
 */
export function findingsOf(report: ActionableReport): Finding[] {
  if (report.kind === 'arf') {
    const facts = { feedbackType: report.feedbackType, reportingMta: report.reportingMta ?? report.userAgent, source: 'arf' }
    return [{ names: report.originalRcptTo ? [report.originalRcptTo] : [], effect: 'complaint', facts }]
  }
  if (report.kind === 'plain-bounce') return plainFindings(report)
  return report.recipients.flatMap((r): Finding[] => {
    if (r.action !== 'failed' && r.action !== 'delayed') return []
    // A failure is classified as the reply it reports would be: a full mailbox (5.2.2) or a
    // policy refusal (5.7.x) is a bounce, and only a bad address (5.1.1) is a hard one.
    const outcome = r.action === 'delayed' ? classifyReply({ code: 450, text: '' }) : classifyFailure(r.status, r.diagnostic)
    if (outcome.kind === 'delivered') return []
    const facts = { action: r.action, status: r.status, diagnostic: r.diagnostic, remoteMta: r.remoteMta, reportingMta: report.reportingMta, category: outcome.category, source: 'dsn' }
    const names = [r.recipient, r.originalRecipient].filter((name): name is string => Boolean(name))
    return [{ names, effect: effectOf(outcome), facts }]
  })
}

function plainFindings(report: Extract<InboundReport, { kind: 'plain-bounce' }>): Finding[] {
  const code = Number(/\b([45]\d\d)\b/.exec(report.text)?.[1] ?? 550)
  const enhanced = /\b([45]\.\d{1,3}\.\d{1,3})\b/.exec(report.text)?.[1]
  const outcome = classifyReply({ code, enhanced, text: report.text })
  if (outcome.kind === 'delivered') return []
  const facts = { status: enhanced ?? null, diagnostic: report.text.slice(0, 500), category: outcome.category, source: 'plain' }
  return [{ names: report.quoted, effect: effectOf(outcome), facts }]
}

/**
 * A DSN's failed recipient: its Status, or when that is only a class (5.0.0) the code its
 * Diagnostic-Code quotes, and the diagnostic's text; a 4.x.x status makes it a delay.
 */
function classifyFailure(status: string | null | undefined, diagnostic: string | null | undefined): Outcome {
  const text = diagnostic ?? ''
  const specific = (code: string | null | undefined) => (code && !/^\d\.0\.0$/.test(code) ? code : undefined)
  const enhanced = specific(status) ?? specific(/\b([45]\.\d{1,3}\.\d{1,3})\b/.exec(text)?.[1])
  return classifyReply({ code: status?.startsWith('4.') ? 450 : 550, enhanced, text })
}

/** The longest line kept of what a report said: a plain bounce's notice can run on. */
const SAID_MAX = 300

/**
 * What a finding's report said, in one line for the project's list of reports: a bounce's status
 * and diagnostic (its "smtp;" type left out), a complaint's feedback type and who reported it.
 */
export function saidOf(facts: ReportFacts): string | undefined {
  const line = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, SAID_MAX)
  if (facts.source === 'arf') return line(`Feedback type ${facts.feedbackType ?? 'unknown'}${facts.reportingMta ? `, reported by ${facts.reportingMta}` : ''}`)
  const diagnostic = facts.diagnostic?.replace(/^\s*[a-z-]+\s*;\s*/i, '')
  const status = facts.status ?? undefined
  if (diagnostic && status && !diagnostic.includes(status)) return line(`${status}: ${diagnostic}`)
  const said = diagnostic || status
  return said ? line(said) : undefined
}

const effectOf = (outcome: Exclude<Outcome, { kind: 'delivered' }>): Effect => (outcome.kind === 'deferred' ? 'delay' : outcome.hard ? 'hard-bounce' : 'bounce')

/**
 * What a finding is about, for applying it once: the delivery and the class of its effect, and
 * nothing the report writes itself. A status or a feedback type in the key would let whoever holds
 * a token apply it again and again ("abuse1", "abuse2"...), and would let the DSN and the
 * plain-text copy of one bounce, classified apart, both count. A bounce, hard or not, is one
 * class; a hard bounce also covers the soft one, so a soft bounce after it changes nothing, while
 * a hard bounce after a soft one is applied once more: it is what suppresses the address.
 */
export function fingerprintOf(deliveryId: number, finding: Pick<Finding, 'effect'>): Fingerprint {
  const key = (effect: Effect) => `delivery:${deliveryId}|${effect}`
  return finding.effect === 'hard-bounce' ? { key: key('hard-bounce'), covers: [key('bounce')] } : { key: key(finding.effect), covers: [] }
}
