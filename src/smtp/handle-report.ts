import { recordReport, type Verdict } from '../core/inbound/index.ts'
import { deliveriesByIds } from '../core/queue/index.ts'
import type { Db, ReceivedOutcome } from '../db/schema.ts'
import { parseReturnPath } from '../delivery/verp.ts'
import type { Clock } from '../lib/clock.ts'
import type { Resolver } from '../lib/dns.ts'
import type { Logger } from '../lib/logger.ts'
import { checkFeedbackLoopSender } from './feedback-loop.ts'
import { headerSection } from './original.ts'
import { findingsOf, type ActionableReport, type Finding } from './report-findings.ts'
import { judgeListedSender, judgeToken, type TokenClaim } from './report-trust.ts'
import { parseReport, type InboundReport } from './inbound-report.ts'

export interface ReportDeps {
  /** Reads (the domains a DMARC report address belongs to). */
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  /** Signs return-path tokens. */
  secret: string
  clock: Clock
  logger: Logger
  /** Fetches DKIM keys of feedback-loop senders. */
  resolver: Resolver
}

export interface FeedbackSettings {
  /** Where feedback loops send complaints (fblAddress), lower case. */
  fblAddress: string
  /** Domains whose DKIM-signed complaints count at that address without a token (fblSenders). */
  fblSenders: readonly string[]
}

/** How a report arrived: the SMTP envelope and peer, kept with it for the operator. */
export interface Arrival {
  /** The envelope recipients it was taken for: return paths and the feedback address. */
  recipients: string[]
  /** The envelope sender; '' for <>. */
  mailFrom: string
  remoteAddress: string | null
  /** The bytes the message had in all, when more arrived than the report handed over (the MX listener keeps the first ones). */
  size?: number
}

/** What became of a report; `retry` when it could not be judged now (a DKIM key could not be fetched) and nothing was done. */
export type ReportResult = { outcome: ReceivedOutcome; applied: number } | { retry: string }

/**
 * Handles the bounces and complaints the MX listener takes. A report changes a delivery only when
 * it proves it is about it: a signed return-path token (at the envelope, or in the original at
 * the feedback address) at that delivery's own return-path host, or a complaint DKIM-signed by a
 * listed feedback-loop sender that names the message (and its recipient, unless it went to
 * one); and then only what it says of that delivery's recipient. Every report is kept with what
 * became of it, in the same transaction as what it changed.
 */
export function createReportHandler(deps: ReportDeps, settings: FeedbackSettings) {
  return async function handleReport(raw: Buffer, arrival: Arrival): Promise<ReportResult> {
    const report = await parseReport(raw)
    const atFeedbackAddress = arrival.recipients.some((to) => to.toLowerCase() === settings.fblAddress)
    const claims = report.kind === 'other' ? [] : tokenClaims(deps.secret, report, raw, arrival.recipients, atFeedbackAddress)
    const sender = report.kind === 'arf' && atFeedbackAddress && !claims.some((c) => c.via === 'original') ? await listedSender(raw) : undefined
    if (sender?.retry) return { retry: sender.retry }
    const now = deps.clock.now()
    const verdicts = await deps.write(async (trx) => {
      const verdicts: Verdict[] =
        report.kind === 'other' ? [{ deliveryId: null, result: 'ignored', reason: report.reason }] : await judge(trx, report, claims, atFeedbackAddress, sender, now)
      const { remoteAddress, mailFrom, recipients: rcptTo, size } = arrival
      const named = verdicts.flatMap((v) => (v.deliveryId === null ? [] : [v.deliveryId]))
      const projectIds = (await deliveriesByIds(trx, [...new Set(named)])).map((d) => d.project_id)
      await recordReport(trx, { ...headersOf(raw), ...summary(verdicts), receivedAt: now, remoteAddress, mailFrom, rcptTo, kind: report.kind, verdicts, raw, size, projectIds })
      return verdicts
    })
    const { outcome, reason } = summary(verdicts)
    const applied = verdicts.filter((v) => v.result === 'applied').length
    const line = outcome === 'applied' ? `${report.kind} applied to ${applied} deliveries` : `${report.kind} changed nothing (${outcome}): ${reason}`
    deps.logger[outcome === 'untrusted' ? 'warn' : 'info']('REPORT', line, { deliveries: [...new Set(verdicts.map((v) => v.deliveryId).filter((id) => id !== null))] })
    return { outcome, applied }
  }

  /** Whether a complaint at the feedback address without a token comes from a listed sender. */
  async function listedSender(raw: Buffer): Promise<{ domain?: string; reason?: string; retry?: string }> {
    if (settings.fblSenders.length === 0) return { reason: 'no feedback-loop senders are listed (fblSenders)' }
    const check = await checkFeedbackLoopSender(raw, settings.fblSenders, deps.resolver, deps.clock.now())
    if (check.ok) return { domain: check.domain }
    return check.temporary ? { retry: check.reason } : { reason: check.reason }
  }

  async function judge(db: Db, report: ActionableReport, claims: TokenClaim[], atFeedbackAddress: boolean, sender: { domain?: string; reason?: string } | undefined, now: number) {
    const findings: Finding[] = findingsOf(report)
    const verdicts: Verdict[] = []
    const judged = new Set<string>()
    for (const claim of claims) {
      // The same token at the envelope and in the original, or twice in it: one judgement.
      if (judged.has(`${claim.deliveryId}@${claim.host}`)) continue
      judged.add(`${claim.deliveryId}@${claim.host}`)
      verdicts.push(...(await judgeToken(db, claim, findings, now)))
    }
    if (!atFeedbackAddress || claims.some((c) => c.via === 'original')) return verdicts
    if (sender?.domain && report.kind === 'arf') {
      verdicts.push(...(await judgeListedSender(db, report.original, findings, sender.domain, now)))
      return verdicts
    }
    const why = report.kind === 'arf' ? `and it is not from a listed feedback-loop sender: ${sender?.reason}` : 'and a bounce there proves itself only by a token'
    verdicts.push({ deliveryId: null, result: 'untrusted', reason: `it came to the feedback address without a token of this server in the original it returns, ${why}` })
    return verdicts
  }
}

/** At most this many return-path addresses are looked at in one report: a legitimate one has one or two. */
const MAX_TOKENS = 10
const VERP_IN_TEXT = /bounces\+[a-z0-9-]+@[a-z0-9.-]+/gi

/**
 * The signed tokens a report came with: each envelope recipient that is a return path, and at the
 * feedback address each one in the report (the original's Return-Path, an ARF's
 * Original-Mail-From, a Received line's envelope-from...). Only someone who saw a delivery's
 * message knows its token, and each is still judged by its host and recipient.
 */
function tokenClaims(secret: string, report: Exclude<InboundReport, { kind: 'other' }>, raw: Buffer, recipients: string[], atFeedbackAddress: boolean): TokenClaim[] {
  const claim = (via: TokenClaim['via']) => (address: string): TokenClaim[] => {
    const token = parseReturnPath(secret, address)
    return token ? [{ ...token, via }] : []
  }
  const inReport = atFeedbackAddress ? [report.original.returnPath ?? '', ...(raw.toString('latin1').match(VERP_IN_TEXT) ?? [])] : []
  return [...recipients.flatMap(claim('envelope')), ...[...new Set(inReport.map((a) => a.toLowerCase()))].slice(0, MAX_TOKENS).flatMap(claim('original'))]
}

const ORDER: ReceivedOutcome[] = ['applied', 'duplicate', 'untrusted', 'ignored']

/** A report's outcome: the best of its verdicts, and why it changed nothing when it did not. */
function summary(verdicts: Verdict[]): { outcome: ReceivedOutcome; reason: string | null } {
  const outcome = ORDER.find((o) => verdicts.some((v) => v.result === o)) ?? 'untrusted'
  if (outcome === 'applied') return { outcome, reason: null }
  if (outcome === 'duplicate') return { outcome, reason: 'what it says was already applied (the same delivery and effect)' }
  return { outcome, reason: verdicts.find((v) => v.result === outcome)?.reason ?? 'it came with no token of this server' }
}

/** The report's own Subject and Message-ID, as written, for the operator's list. */
function headersOf(raw: Buffer): { subject: string | null; messageId: string | null } {
  const head = headerSection(raw.subarray(0, 65_536)).toString('utf8').replace(/\r?\n[ \t]+/g, ' ')
  const value = (name: string) => new RegExp(`^${name}[ \\t]*:[ \\t]*(.*)$`, 'im').exec(head)?.[1]?.trim() || null
  return { subject: value('subject'), messageId: value('message-id') }
}
