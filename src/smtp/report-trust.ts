import { addressKey, applyBounce, applyComplaint, applyDelay, deliveriesOfMessage, findReportedDelivery, type DeliveryRow } from '../core/emails/feedback.ts'
import { firstSighting } from '../core/inbound/index.ts'
import type { Verdict } from '../core/inbound/index.ts'
import type { Db } from '../db/schema.ts'
import { LEGACY_TOKEN_DAYS, type ReturnPathToken } from '../delivery/verp.ts'
import type { OriginalMessage } from './original.ts'
import { fingerprintOf, saidOf, type Finding } from './report-findings.ts'
import { namedAddresses, namesRecipient } from './report-names.ts'

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
  if (claim.legacy && found.delivery.created_at < now - LEGACY_TOKEN_DAYS * 86_400_000) {
    return [untrusted(claim.deliveryId, `its token is of the old, readable form, taken only for ${LEGACY_TOKEN_DAYS} days after the delivery was made`)]
  }
  return applyFindings(db, found.delivery, findings, now)
}

/**
 * What a complaint from a listed feedback-loop sender (its DKIM passed) changes. It proves no
 * delivery by token, so it names one by the original's Message-ID among the mail sent from the
 * original's From domain (another project's mail under the same Message-ID is not looked at),
 * and by its Original-Rcpt-To, or, when the loop hid or left that out, by the message having had
 * one recipient: the original's To and Cc say whom it was shown to, not who complained. A
 * project that sent one Message-ID to the same recipient twice is not let off by it: its newest
 * delivery takes the complaint.
 */
export async function judgeListedSender(db: Db, original: OriginalMessage, findings: Finding[], sender: string, now: number): Promise<Verdict[]> {
  const from = `a complaint from the feedback loop ${sender}`
  if (!original.messageId || !original.fromDomain) {
    return [untrusted(null, `${from} names no ${original.messageId ? 'From' : 'Message-ID'} of the original, and no token: it proves no delivery`)]
  }
  const named = namedAddresses(findings[0]?.names ?? [])
  const sent = await deliveriesOfMessage(db, original.messageId, original.fromDomain)
  const candidates = named.length > 0 ? sent.filter((d) => namesRecipient(named, d.recipient)) : sent
  const about = `${original.messageId} from ${original.fromDomain}${named.length > 0 ? ` to ${named.join(', ')}` : ''}`
  const recipients = new Set(candidates.map((d) => `${d.project_id} ${addressKey(d.recipient)}`)).size
  if (recipients === 0) return [untrusted(null, `${from} names no delivery of ${about}`)]
  if (recipients > 1) {
    const why = named.length > 0 ? `${about} was sent by ${recipients} projects` : `its Original-Rcpt-To is hidden or missing and ${about} went to ${recipients} recipients`
    return [untrusted(null, `${from} cannot tell whose complaint it is: ${why}`)]
  }
  return applyFindings(db, candidates[0]!, findings, now)
}

/** Applies each finding about the delivery's recipient, once; the others change nothing. */
async function applyFindings(db: Db, delivery: DeliveryRow, findings: Finding[], now: number): Promise<Verdict[]> {
  if (findings.length === 0) return [{ deliveryId: delivery.id, result: 'ignored', reason: 'the report says nothing to act on (delivered, relayed or expanded)' }]
  const verdicts: Verdict[] = []
  for (const finding of findings) {
    const said = saidOf(finding.facts)
    const refusal = namesRefusal(finding, delivery.recipient)
    if (refusal) {
      verdicts.push({ ...untrusted(delivery.id, refusal), effect: finding.effect, ...(said && { said }) })
      continue
    }
    const first = await firstSighting(db, fingerprintOf(delivery.id, finding), now)
    if (first) await apply(db, delivery, finding, now)
    verdicts.push({ deliveryId: delivery.id, effect: finding.effect, result: first ? 'applied' : 'duplicate', ...(said && { said }) })
  }
  return verdicts
}

/**
 * Why a finding is not about the delivery's recipient, or null when it is. A bounce must name
 * it. A complaint must name no one else, but may name no one: large feedback loops hide the
 * recipient (redacted@, xxxxx, nothing), and the token or the loop's signature proved the delivery.
 */
function namesRefusal(finding: Finding, recipient: string): string | null {
  if (namesRecipient(finding.names, recipient)) return null
  if (finding.effect === 'complaint' && namedAddresses(finding.names).length === 0) return null
  return `the report names ${finding.names.length > 0 ? finding.names.join(', ') : 'no recipient'}, not the delivery's recipient`
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
