import { applyBounce, applyComplaint, applyDelay, findDelivery, findDeliveryByMessageId, firstSighting, type DeliveryRow, type ReportFacts } from '../core/emails/feedback.ts'
import type { Db } from '../db/schema.ts'
import { classifyReply } from '../delivery/classify.ts'
import { deliveryOfReturnPath } from '../delivery/verp.ts'
import type { Clock } from '../lib/clock.ts'
import { sha256Hex } from '../lib/crypto.ts'
import type { Logger } from '../lib/logger.ts'
import { parseReport, type InboundReport, type OriginalMessage } from './report.ts'

export interface ReportDeps {
  /** Reads (the domains a DMARC report address belongs to). */
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  /** Signs return-path tokens. */
  secret: string
  clock: Clock
  logger: Logger
}

type Effect = 'bounce' | 'hard-bounce' | 'delay' | 'complaint'

interface Finding {
  /** Who the report names, when the delivery is found some other way. */
  recipients: string[]
  effect: Effect
  facts: ReportFacts
}

/**
 * Applies one report that arrived at the MX listener, in one transaction: each delivery it is
 * about gets its event, state, suppression and unsubscription. `deliveryIds` are those the
 * report's envelope recipients name (bounces go to the return path of what bounced). A report
 * seen before, or about mail this server never sent, changes nothing.
 */
export async function handleReport(deps: ReportDeps, raw: Buffer, deliveryIds: number[]): Promise<number> {
  const report = await parseReport(raw)
  if (report.kind === 'other') {
    deps.logger.info('REPORT', `not a report this server acts on: ${report.reason}`)
    return 0
  }
  const reportId = /^message-id:\s*(\S+)/im.exec(raw.subarray(0, 16_384).toString('latin1'))?.[1] ?? sha256Hex(raw.toString('latin1'))
  const now = deps.clock.now()
  const applied = await deps.write(async (trx) => {
    let count = 0
    for (const finding of findingsOf(report)) {
      const delivery = await deliveryFor(trx, deps.secret, finding, report.original, deliveryIds)
      if (!delivery) continue
      if (!(await firstSighting(trx, `${reportId}|${delivery.id}|${finding.effect}`, now))) continue
      await apply(trx, delivery, finding, now)
      count++
    }
    return count
  })
  deps.logger[applied > 0 ? 'info' : 'warn']('REPORT', applied > 0 ? `${report.kind} applied to ${applied} deliveries` : `${report.kind} about no delivery of this server, or seen before`)
  return applied
}

/** What a report says, one finding per recipient it is about. */
function findingsOf(report: Exclude<InboundReport, { kind: 'other' }>): Finding[] {
  if (report.kind === 'arf') {
    const facts = { feedbackType: report.feedbackType, reportingMta: report.reportingMta ?? report.userAgent, source: 'arf' }
    return [{ recipients: [report.originalRcptTo ?? '', ...report.original.to].filter(Boolean), effect: 'complaint', facts }]
  }
  if (report.kind === 'plain-bounce') {
    const code = Number(/\b([45]\d\d)\b/.exec(report.text)?.[1] ?? 550)
    const enhanced = /\b([45]\.\d{1,3}\.\d{1,3})\b/.exec(report.text)?.[1]
    const outcome = classifyReply({ code, enhanced, text: report.text })
    if (outcome.kind === 'delivered') return []
    const facts = { status: enhanced ?? null, diagnostic: report.text.slice(0, 500), category: outcome.category, source: 'plain' }
    const effect: Effect = outcome.kind === 'deferred' ? 'delay' : outcome.hard ? 'hard-bounce' : 'bounce'
    return [{ recipients: report.original.to, effect, facts }]
  }
  return report.recipients.flatMap((r): Finding[] => {
    const failed = r.action === 'failed' && !r.status?.startsWith('4.')
    const delayed = r.action === 'delayed' || (r.action === 'failed' && r.status?.startsWith('4.'))
    if (!failed && !delayed) return []
    const facts = { action: r.action, status: r.status, diagnostic: r.diagnostic, remoteMta: r.remoteMta, reportingMta: report.reportingMta, source: 'dsn' }
    return [{ recipients: [r.recipient ?? '', ...report.original.to].filter(Boolean), effect: failed ? 'hard-bounce' : 'delay', facts }]
  })
}

/** The delivery a finding is about: by the return-path token, else by the original's Message-ID. */
async function deliveryFor(db: Db, secret: string, finding: Finding, original: OriginalMessage, deliveryIds: number[]): Promise<DeliveryRow | undefined> {
  const fromReturnPath = original.returnPath ? deliveryOfReturnPath(secret, original.returnPath) : undefined
  const ids = [...deliveryIds, ...(fromReturnPath === undefined ? [] : [fromReturnPath])]
  const candidates = (await Promise.all(ids.map((id) => findDelivery(db, id)))).filter((d): d is DeliveryRow => d !== undefined)
  const named = new Set(finding.recipients.map((r) => r.toLowerCase()))
  const byToken = candidates.find((d) => named.has(d.recipient.toLowerCase())) ?? (candidates.length === 1 ? candidates[0] : undefined)
  if (byToken) return byToken
  return original.messageId ? findDeliveryByMessageId(db, original.messageId, finding.recipients) : undefined
}

function apply(db: Db, delivery: DeliveryRow, finding: Finding, now: number) {
  switch (finding.effect) {
    case 'hard-bounce':
      return applyBounce(db, delivery, finding.facts, true, now)
    case 'bounce':
      return applyBounce(db, delivery, finding.facts, false, now)
    case 'delay':
      return applyDelay(db, delivery, finding.facts, now)
    case 'complaint':
      return applyComplaint(db, delivery, finding.facts, now)
  }
}
