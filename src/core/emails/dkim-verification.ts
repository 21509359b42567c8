import { dkimVerify } from 'mailauth/lib/dkim/verify'
import type { DKIMResult } from 'mailauth'
import { check, type Check } from './receiver-checks.ts'

/** A DKIM key record as Mailstead holds it: what `name` must publish in DNS for receivers. */
export interface HeldKey {
  /** <selector>._domainkey.<domain>, lower case. */
  name: string
  /** The TXT value: v=DKIM1; k=...; p=... */
  value: string
  /** Whether DNS was last seen publishing it (the domain is verified): receivers find it too. */
  published: boolean
  /** A sandbox project's own key: its mail never reaches a receiver, so no DNS publishes it, nor needs to. */
  sandbox?: boolean
}

const notFound = (name: string) => Object.assign(new Error(`${name}: no key held`), { code: 'ENOTFOUND' })

/**
 * A resolver for mailauth that answers only the DKIM keys Mailstead holds, from its own database:
 * checking a message never goes to the network, and a signature by a key held nowhere here is
 * reported as not checked rather than judged on what some DNS server says.
 */
export const heldKeyResolver = (keys: readonly HeldKey[]) => async (name: string, type: string) => {
  const key = type === 'TXT' ? keys.find((k) => k.name === name.toLowerCase().replace(/\.$/, '')) : undefined
  if (!key) throw notFound(name)
  return [[key.value]]
}

const keyName = (r: DKIMResult) => `${r.selector ?? ''}._domainkey.${r.signingDomain}`.toLowerCase()
const label = (r: DKIMResult) => `d=${r.signingDomain} s=${r.selector ?? '?'}`

/** One signature's verdict: against the held key, and whether receivers can find that key. */
function signatureCheck(result: DKIMResult, keys: readonly HeldKey[]): Check {
  const key = keys.find((k) => k.name === keyName(result))
  const [id, name] = ['dkim', `DKIM signature (${label(result)})`]
  if (!key) return check(id, name, 'info', `Not checked: Mailstead holds no key for ${keyName(result)}, and checks do not ask DNS`)
  const { result: verdict, comment, underSized } = result.status
  if (verdict !== 'pass') return check(id, name, 'fail', `${verdict}${comment ? `: ${comment}` : ''}`)
  if (underSized) return check(id, name, 'warn', 'Passes, but leaves part of the body unsigned (l=)')
  if (key.sandbox) return check(id, name, 'pass', `Passes with the project's sandbox key (${key.name}): sandbox mail never reaches a receiver, so no DNS publishes it`)
  if (!key.published) return check(id, name, 'warn', `Passes with the key Mailstead holds, but ${key.name} is not verified in DNS, so receivers may not find it`)
  return check(id, name, 'pass', `Passes with the key ${key.name} publishes`)
}

/** The From domain aligns (relaxed, as DMARC's default) with the d= of a passing signature. */
function alignmentCheck(from: string | undefined, results: DKIMResult[]): Check {
  const [id, name] = ['dkim-alignment', 'From aligned with DKIM']
  const aligned = results.filter((r) => r.status.aligned)
  if (aligned.some((r) => r.status.result === 'pass')) return check(id, name, 'pass', `From ${from} aligns with ${aligned.map(label).join(', ')}`)
  if (aligned.length > 0) return check(id, name, 'warn', `From ${from} aligns with ${aligned.map(label).join(', ')}, but no aligned signature passed here`)
  const signers = results.map((r) => `d=${r.signingDomain}`).join(', ') || 'no signature'
  return check(id, name, 'fail', `From ${from ?? '(none)'} does not align with ${signers}: DMARC fails on DKIM`)
}

/** Verifies the signed message's DKIM signatures with mailauth against the keys Mailstead holds. */
export async function dkimChecks(signed: Uint8Array, keys: readonly HeldKey[], now: number): Promise<Check[]> {
  const verified = await dkimVerify(Buffer.from(signed), { resolver: heldKeyResolver(keys) as never, curTime: new Date(now) })
  const dkim = verified.results.filter((r) => r.status.result !== 'none')
  const from = verified.headerFrom?.[0]
  if (dkim.length === 0) return [check('dkim', 'DKIM signature', 'fail', 'The message carries no DKIM signature'), alignmentCheck(from, [])]
  return [...dkim.map((r) => signatureCheck(r, keys)), alignmentCheck(from, dkim)]
}
