import {
  addressKey,
  applyBounce,
  applyComplaint,
  applyDelay,
  deliveriesTo,
  findReportedDelivery,
  firstSighting,
  type DeliveryRow,
} from '../core/emails/feedback.ts'
import type { Verdict } from '../core/inbound/received-reports.repository.ts'
import type { Db } from '../db/schema.ts'
import type { ReturnPathToken } from '../delivery/verp.ts'
import { fingerprintOf, type Finding } from './report-findings.ts'

/** A signed return-path token a report came with, and where: its envelope recipient, or the original it returns. */
export interface TokenClaim extends ReturnPathToken {
  via: 'envelope' | 'original'
}

const untrusted = (deliveryId: number | null, reason: string): Verdict => ({ deliveryId, result: 'untrusted', reason })

/**
 * What a report changes for the delivery a token names: nothing unless the token came at that
 * delivery's own return-path host (a token is no proof at another domain's), and then only
 * what the report says of that delivery's recipient.
 */
export async function judgeToken(db: Db, claim: TokenClaim, findings: Finding[], now: number): Promise<Verdict[]> {
  const found = await findReportedDelivery(db, claim.deliveryId)
  if (!found) return [untrusted(claim.deliveryId, `its token names delivery ${claim.deliveryId}, which this server does not have`)]
  if (found.returnPathHost !== claim.host) {
    const own = found.returnPathHost ?? 'none: its sending domain was removed'
    const where = claim.via === 'envelope' ? 'it arrived at' : 'the original it returns went out from'
    return [untrusted(claim.deliveryId, `${where} the host ${claim.host}, not delivery ${claim.deliveryId}'s own return-path host (${own})`)]
  }
  return applyFindings(db, found.delivery, findings, now)
}

/**
 * What a complaint from a listed feedback-loop sender (its DKIM passed) changes: it proves no
 * delivery by token, so it must name the message (Message-ID) and the recipient the receiver
 * took it for (Original-Rcpt-To: the original's To names every recipient), and they must name
 * exactly one delivery.
 */
export async function judgeListedSender(db: Db, about: { messageId: string | null; rcptTo: string | null }, findings: Finding[], sender: string, now: number): Promise<Verdict[]> {
  const from = `a complaint from the feedback loop ${sender}`
  if (!about.messageId || !about.rcptTo) return [untrusted(null, `${from} names ${about.messageId ? 'no Original-Rcpt-To' : 'no Message-ID of the original'}, and no token: it proves no delivery`)]
  const found = await deliveriesTo(db, about.messageId, about.rcptTo)
  if (found.length !== 1) return [untrusted(null, `${from} names ${found.length === 0 ? 'no delivery' : `${found.length} deliveries`} of ${about.messageId} to ${about.rcptTo}`)]
  return applyFindings(db, found[0]!.delivery, findings, now)
}

/** Applies each finding that names the delivery's recipient, once; the others change nothing. */
async function applyFindings(db: Db, delivery: DeliveryRow, findings: Finding[], now: number): Promise<Verdict[]> {
  if (findings.length === 0) return [{ deliveryId: delivery.id, result: 'ignored', reason: 'the report says nothing to act on (delivered, relayed or expanded)' }]
  const verdicts: Verdict[] = []
  for (const finding of findings) {
    if (!namesRecipient(finding, delivery.recipient)) {
      const named = finding.names.length > 0 ? finding.names.join(', ') : 'no recipient'
      verdicts.push({ ...untrusted(delivery.id, `the report names ${named}, not the delivery's recipient`), effect: finding.effect })
      continue
    }
    const first = await firstSighting(db, fingerprintOf(delivery.id, finding), now)
    if (first) await apply(db, delivery, finding, now)
    verdicts.push({ deliveryId: delivery.id, effect: finding.effect, result: first ? 'applied' : 'duplicate' })
  }
  return verdicts
}

/** Whether a finding names this recipient (compared as addresses are: the local part and domain case-insensitively). */
export const namesRecipient = (finding: Pick<Finding, 'names'>, recipient: string) => {
  const key = addressKey(recipient)
  return finding.names.some((name) => addressKey(name) === key)
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
