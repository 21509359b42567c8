import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { nodeStyleResolver } from '../dns/node-resolver.ts'
import type { Resolver } from '../lib/dns.ts'
import { headerSection } from './original.ts'

/** Whether a report comes from a listed feedback-loop sender, as its DKIM signature proves. */
export type SenderCheck =
  | { ok: true; domain: string }
  /** `temporary`: a listed sender's key could not be fetched; the same report may pass later. */
  | { ok: false; reason: string; temporary: boolean }

/** Whether a signing domain is a listed sender or a name under one (fbl.yahoo.com covers mx.fbl.yahoo.com). */
export const isListed = (domain: string, senders: readonly string[]) => senders.some((sender) => domain === sender || domain.endsWith(`.${sender}`))

/** Signatures looked at in one report: each costs a DNS query, and a stranger writes as many as they like. */
const MAX_SIGNATURES = 8

/** The d= of each DKIM-Signature header, lower case ('' when it has none). */
export function signingDomainsOf(raw: Buffer): string[] {
  const head = headerSection(raw).toString('latin1').replace(/\r?\n[ \t]+/g, ' ')
  const signatures = head.match(/^dkim-signature[ \t]*:.*$/gim) ?? []
  return signatures.map((signature) => /[;:\s]d[ \t]*=[ \t]*([^;\s]+)/i.exec(signature)?.[1]?.toLowerCase() ?? '')
}

/**
 * Checks a report's DKIM signatures (mailauth, through our resolver) for one that passes, by a
 * listed domain, over the whole body: a signature with a body length limit (l=) that leaves some
 * of the body unsigned does not count, as anything could have been added after it.
 */
export async function checkFeedbackLoopSender(raw: Buffer, senders: readonly string[], resolver: Resolver, now: number): Promise<SenderCheck> {
  const domains = signingDomainsOf(raw)
  if (domains.length > MAX_SIGNATURES) return { ok: false, reason: `it carries ${domains.length} DKIM signatures, more than the ${MAX_SIGNATURES} looked at`, temporary: false }
  if (!domains.some((domain) => isListed(domain, senders))) {
    const signers = domains.filter(Boolean)
    return { ok: false, reason: `not signed by a listed feedback-loop sender (${signers.length > 0 ? `signed by ${signers.join(', ')}` : 'no DKIM signature'})`, temporary: false }
  }
  const verified = await dkimVerify(raw, {
    resolver: nodeStyleResolver((name, type) => resolver.query(name, type)) as never,
    curTime: new Date(now),
  })
  const listed = verified.results.filter((r) => isListed((r.signingDomain ?? '').toLowerCase(), senders))
  const passed = listed.find((r) => r.status.result === 'pass' && !r.status.underSized)
  if (passed) return { ok: true, domain: passed.signingDomain.toLowerCase() }
  if (listed.length === 0) return { ok: false, reason: 'its DKIM signature by a listed feedback-loop sender could not be read', temporary: false }
  const why = listed.map((r) => `d=${r.signingDomain}: ${r.status.underSized ? 'part of the body unsigned (l=)' : `${r.status.result}${r.status.comment ? `, ${r.status.comment}` : ''}`}`)
  return { ok: false, reason: `the DKIM signature of a listed feedback-loop sender did not pass (${why.join('; ')})`, temporary: listed.some((r) => r.status.result === 'temperror') }
}
