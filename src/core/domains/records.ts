import { recordsOf, type DnsAnswer } from '../../lib/dns.ts'

export type RecordKind = 'dkim' | 'dkim-ed25519' | 'return-path-mx' | 'spf' | 'dmarc'

/** A record a sending domain publishes for this server. */
export interface ExpectedRecord {
  kind: RecordKind
  type: 'TXT' | 'MX'
  name: string
  value: string
  priority?: number
  /** Required records decide whether the domain may send; the others are recommended. */
  required: boolean
}

export interface DomainKeys {
  name: string
  return_path_label: string
  dkim_selector: string
  dkim_public_key: string
  ed25519_selector: string
  ed25519_public_key: string
}

/** The host that carries the envelope sender (MAIL FROM) of a domain's mail. */
export const returnPathHost = (domain: Pick<DomainKeys, 'name' | 'return_path_label'>) =>
  `${domain.return_path_label}.${domain.name}`

/**
 * Where reporters send a domain's DMARC aggregate reports (the rua of its recommended record): a
 * mailbox of its return-path host, whose MX already points here, and which shares the domain's
 * organizational domain, so no external-destination record (RFC 7489 §7.1) is needed.
 */
export const dmarcReportAddress = (domain: Pick<DomainKeys, 'name' | 'return_path_label'>) => `dmarc@${returnPathHost(domain)}`

/**
 * What a domain must publish: its DKIM key; the return-path host's MX pointing here (so bounces
 * come back) and SPF naming this host (the envelope sender lives there, so SPF aligns with the
 * From domain under relaxed DMARC); and, recommended, DMARC (p=none, with reports sent here) and
 * the Ed25519 DKIM key.
 */
export function expectedRecords(domain: DomainKeys, hostname: string): ExpectedRecord[] {
  const returnPath = returnPathHost(domain)
  return [
    { kind: 'dkim', type: 'TXT', name: `${domain.dkim_selector}._domainkey.${domain.name}`, value: `v=DKIM1; k=rsa; p=${domain.dkim_public_key}`, required: true },
    { kind: 'return-path-mx', type: 'MX', name: returnPath, value: hostname, priority: 10, required: true },
    { kind: 'spf', type: 'TXT', name: returnPath, value: `v=spf1 a:${hostname} ~all`, required: true },
    { kind: 'dmarc', type: 'TXT', name: `_dmarc.${domain.name}`, value: `v=DMARC1; p=none; rua=mailto:${dmarcReportAddress(domain)}`, required: false },
    { kind: 'dkim-ed25519', type: 'TXT', name: `${domain.ed25519_selector}._domainkey.${domain.name}`, value: `v=DKIM1; k=ed25519; p=${domain.ed25519_public_key}`, required: false },
  ]
}

export type Verdict =
  | { result: 'ok'; found: string }
  | { result: 'wrong' | 'missing' | 'unavailable'; found: string | null; problem: string }

/** What DNS's answer means for one expected record. */
export function judge(record: ExpectedRecord, answer: DnsAnswer, hostname: string): Verdict {
  if (answer.rcode !== 'NOERROR' && answer.rcode !== 'NXDOMAIN') {
    return { result: 'unavailable', found: null, problem: `the DNS server answered ${answer.rcode}` }
  }
  switch (record.kind) {
    case 'dkim':
    case 'dkim-ed25519':
      return judgeDkim(record, texts(answer))
    case 'return-path-mx':
      return judgeMx(answer, hostname)
    case 'spf':
      return judgeSpf(texts(answer), hostname, record.name)
    case 'dmarc': {
      const dmarc = texts(answer).find((text) => /^v=DMARC1\s*(;|$)/i.test(text))
      return dmarc ? { result: 'ok', found: dmarc } : missing('no v=DMARC1 record')
    }
  }
}

const texts = (answer: DnsAnswer) => recordsOf(answer, 'TXT').map((r) => r.value.trim())
const missing = (problem: string): Verdict => ({ result: 'missing', found: null, problem })

/** DKIM tags (RFC 6376 3.2): `v=DKIM1; k=rsa; p=...`, whitespace inside values ignored. */
function dkimTags(text: string): Map<string, string> {
  return new Map(
    text
      .split(';')
      .map((part) => part.split('='))
      .filter((pair) => pair.length >= 2)
      .map(([tag, ...value]) => [tag!.trim().toLowerCase(), value.join('=').replace(/\s+/g, '')]),
  )
}

function judgeDkim(record: ExpectedRecord, found: string[]): Verdict {
  const expected = dkimTags(record.value)
  const match = found.find((text) => {
    const tags = dkimTags(text)
    return (tags.get('v') ?? 'DKIM1') === 'DKIM1' && (tags.get('k') ?? 'rsa') === expected.get('k') && tags.get('p') === expected.get('p')
  })
  if (match) return { result: 'ok', found: match }
  const other = found.find((text) => dkimTags(text).has('p'))
  return other
    ? { result: 'wrong', found: other, problem: 'the published key is not the one this server signs with' }
    : missing('no DKIM record')
}

function judgeMx(answer: DnsAnswer, hostname: string): Verdict {
  const exchanges = recordsOf(answer, 'MX').map((r) => r.value.replace(/\.$/, '').toLowerCase())
  if (exchanges.includes(hostname)) return { result: 'ok', found: hostname }
  return exchanges.length > 0
    ? { result: 'wrong', found: exchanges.join(', '), problem: `the MX does not point to ${hostname}` }
    : missing('no MX record')
}

function judgeSpf(found: string[], hostname: string, host: string): Verdict {
  const spf = found.filter((text) => /^v=spf1(\s|$)/i.test(text))
  if (spf.length === 0) return missing('no SPF record (v=spf1)')
  if (spf.length > 1) return { result: 'wrong', found: spf.join(' | '), problem: 'more than one SPF record (RFC 7208 makes that an error)' }
  const terms = spf[0]!.toLowerCase().split(/\s+/).map((term) => term.replace(/^[+]/, ''))
  const allowed = [`a:${hostname}`, 'mx', `mx:${host}`]
  return terms.some((term) => allowed.includes(term))
    ? { result: 'ok', found: spf[0]! }
    : { result: 'wrong', found: spf[0]!, problem: `the SPF record does not authorise ${hostname} (a:${hostname})` }
}
