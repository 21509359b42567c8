import { isIPv4, isIPv6 } from 'node:net'
import { finding, type Finding } from '../lib/findings.ts'
import { failureOf, recordsOf, type DnsAnswer, type RecordType } from '../lib/dns.ts'
import { ipv6Hex } from '../lib/outbound/addresses.ts'
import { blocklistInfo, readListing } from './blocklists.ts'

/*
 * Reputation self-checks: what receivers look at before they read a message from this server,
 * judged from DNS answers. Pure: the answers come in, findings in words go out. A DNS failure
 * (REFUSED, SERVFAIL, no answer) is always `unchecked`, never a pass or a failure.
 */

/** One DNS question's outcome: the values found, none (why), or no answer to be had (why). */
export type Answer = { values: string[] } | { none: string } | { failed: string }

export function answerOf(asked: DnsAnswer | Error, type: RecordType): Answer {
  if (asked instanceof Error) return { failed: asked.message.replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase()) }
  if (asked.rcode === 'NXDOMAIN') return { none: 'the name does not exist (NXDOMAIN)' }
  if (asked.rcode !== 'NOERROR') return { failed: `the DNS server answered ${failureOf(asked)}` }
  const values = recordsOf(asked, type).map((r) => (type === 'A' || type === 'AAAA' ? r.value : r.value.toLowerCase()))
  return values.length > 0 ? { values } : { none: `there is no ${type} record` }
}

/** A (IPv4) or AAAA (IPv6): the record type that names `ip`. */
export const addressType = (ip: string): 'A' | 'AAAA' => (isIPv4(ip) ? 'A' : 'AAAA')

/** Whether two addresses are the same, however IPv6 is written. */
export function sameIp(a: string, b: string): boolean {
  if (isIPv4(a) || isIPv4(b)) return a === b
  return isIPv6(a) && isIPv6(b) && ipv6Hex(a) === ipv6Hex(b)
}

const holds = (answer: Answer, ip: string) => 'values' in answer && answer.values.some((value) => sameIp(value, ip))

/** The addresses the checks run for, and where they came from. */
export function judgePublicIps(ips: readonly string[], configured: boolean): Finding {
  if (ips.length === 0) {
    return finding(
      'public-ips',
      'this server',
      'warning',
      "No public IP address was found on this machine's network interfaces (it may be behind NAT), so the PTR, blocklist and SPF checks could not run.",
      'Set MAILSTEAD_PUBLIC_IPS to the public addresses this server sends from, comma-separated.',
    )
  }
  const source = configured ? 'MAILSTEAD_PUBLIC_IPS' : "found on the machine's network interfaces; set MAILSTEAD_PUBLIC_IPS if mail leaves from others"
  return finding('public-ips', ips.join(', '), 'ok', `This server sends from ${ips.join(', ')} (${source}).`)
}

/**
 * The PTR of `ip` exists and one of its names resolves back to `ip` (forward-confirmed reverse
 * DNS); then, whether that name is `hostname`, the name given in EHLO. `forward` holds the A (or
 * AAAA) answer of each PTR name.
 */
export function judgePtr(ip: string, ptr: Answer, forward: ReadonlyMap<string, Answer>, hostname: string): Finding[] {
  if ('failed' in ptr) return [finding('ptr', ip, 'unchecked', `Could not look up the PTR record of ${ip}: ${ptr.failed}.`)]
  if ('none' in ptr) {
    return [
      finding(
        'ptr',
        ip,
        'failed',
        `${ip} has no PTR record (reverse DNS): large providers refuse or junk mail from such addresses.`,
        `Set the reverse DNS (PTR) of ${ip} to ${hostname} in your VPS or hosting provider's control panel.`,
      ),
    ]
  }
  return [judgeForward(ip, ptr.values, forward, hostname), judgePtrName(ip, ptr.values, hostname)]
}

function judgeForward(ip: string, names: string[], forward: ReadonlyMap<string, Answer>, hostname: string): Finding {
  const type = addressType(ip)
  const confirmed = names.find((name) => holds(forward.get(name) ?? { none: '' }, ip))
  if (confirmed) return finding('ptr', ip, 'ok', `${ip} has the PTR ${confirmed}, which resolves back to ${ip}.`)
  const failed = names.find((name) => 'failed' in (forward.get(name) ?? { none: '' }))
  if (failed) {
    const why = (forward.get(failed) as { failed: string }).failed
    return finding('ptr', ip, 'unchecked', `Could not confirm the PTR ${failed} of ${ip}: looking up ${type} ${failed} failed (${why}).`)
  }
  const where = names.map((name) => `${name} ${resolvesTo(forward.get(name), type)}`).join('; ')
  return finding(
    'ptr',
    ip,
    'failed',
    `The PTR of ${ip} does not resolve back to it (${where}): forward-confirmed reverse DNS fails, and receivers distrust the address.`,
    `Set the PTR of ${ip} to ${hostname} at your VPS or hosting provider and give ${hostname} an ${type} record for ${ip}; or give ${names[0]} an ${type} record for ${ip}.`,
  )
}

const resolvesTo = (answer: Answer | undefined, type: string) =>
  answer && 'values' in answer ? `resolves to ${answer.values.join(', ')}` : `has no ${type} record`

function judgePtrName(ip: string, names: string[], hostname: string): Finding {
  if (names.includes(hostname)) return finding('ptr-hostname', ip, 'ok', `The PTR of ${ip} is ${hostname}, the name this server gives in EHLO.`)
  return finding(
    'ptr-hostname',
    ip,
    'warning',
    `The PTR of ${ip} is ${names.join(', ')}, not ${hostname}, the name this server gives in EHLO (MAILSTEAD_HOSTNAME).`,
    `Set the PTR of ${ip} to ${hostname} at your VPS or hosting provider, or set MAILSTEAD_HOSTNAME to ${names[0]} if that is the server's name.`,
  )
}

/** `hostname` resolves to `ip`: the EHLO name and SPF's `a:` depend on it. `answer` is its A or AAAA. */
export function judgeHostname(hostname: string, ip: string, answer: Answer): Finding {
  const type = addressType(ip)
  if ('failed' in answer) return finding('hostname', ip, 'unchecked', `Could not look up ${type} ${hostname}: ${answer.failed}.`)
  if (holds(answer, ip)) return finding('hostname', ip, 'ok', `${hostname} resolves to ${ip}.`)
  const found = 'values' in answer ? `it resolves to ${answer.values.join(', ')}` : `it has no ${type} record`
  const ipv6 = type === 'AAAA' ? ', or send over IPv4 only (MAILSTEAD_DELIVERY_IP_FAMILY=ipv4) and leave this address out of MAILSTEAD_PUBLIC_IPS' : ''
  return finding(
    'hostname',
    ip,
    'failed',
    `${hostname} (MAILSTEAD_HOSTNAME) does not resolve to ${ip}, an address this server sends from: ${found}.`,
    `Give ${hostname} an ${type} record for ${ip} at your DNS host${ipv6}; or set MAILSTEAD_HOSTNAME to the name that does resolve to it.`,
  )
}

/** What a blocklist answered for `ip`; `answer` is undefined when the list does not take IPv6. */
export function judgeBlocklist(ip: string, zone: string, answer: Answer | undefined): Finding {
  const subject = `${zone} ${ip}`
  const { label, removal } = blocklistInfo(zone)
  const name = label === zone ? zone : `${label} (${zone})`
  if (!answer) return finding('blocklist', subject, 'skipped', `${name} lists IPv4 addresses only: ${ip} was not looked up.`)
  if ('failed' in answer) return finding('blocklist', subject, 'unchecked', `Could not check ${ip} on ${name}: ${answer.failed}.`)
  if ('none' in answer) return finding('blocklist', subject, 'ok', `${ip} is not listed on ${name}.`)
  const listing = readListing(zone, answer.values)
  if (listing.kind === 'listed') {
    return finding('blocklist', subject, 'failed', `${ip} is listed on ${name}: ${listing.reasons.join('; ')}.`, removal)
  }
  if (listing.kind === 'refused') {
    return finding(
      'blocklist',
      subject,
      'unchecked',
      `${name} refused to answer for ${ip} (${listing.reason}), so it could not be checked.`,
      `Ask blocklists through a resolver of your own (MAILSTEAD_DNS_SERVERS pointing at a local Unbound, say) rather than a public one, or take ${zone} off MAILSTEAD_BLOCKLISTS.`,
    )
  }
  return finding('blocklist', subject, 'unchecked', `${name} answered ${listing.codes.join(', ')} for ${ip}, which is not a listing code, so it could not be checked.`)
}

/** mailauth's SPF verdict: `pass`, `fail`, `softfail`, `neutral`, `none`, `permerror`, `temperror`. */
export interface SpfOutcome {
  result: string
  /** Why, in mailauth's words. */
  comment?: string
  /** The record evaluated, when there was one. */
  record?: string
}

/**
 * Whether the SPF of a sending domain's return-path host (`host`: the envelope sender's domain,
 * the one SPF is evaluated for) lets `ip` send. Anything but pass fails SPF, and DMARC then rests
 * on DKIM alone.
 */
export function judgeSpf(domain: string, host: string, ip: string, hostname: string, outcome: SpfOutcome): Finding {
  const subject = `${domain} ${ip}`
  const why = outcome.comment?.replace(/^[^:]*:\s*/, '')
  if (outcome.result === 'pass') return finding('spf', subject, 'ok', `The SPF of ${host} (${domain}'s return path) lets ${ip} send.`)
  if (outcome.result === 'temperror') return finding('spf', subject, 'unchecked', `Could not evaluate the SPF of ${host} for ${ip}: ${why ?? 'a DNS lookup failed'}.`)
  const found = outcome.record ? ` (${outcome.record})` : ''
  const what =
    outcome.result === 'none'
      ? `${host} has no SPF record, so SPF does not pass for ${ip}`
      : outcome.result === 'permerror'
        ? `the SPF record of ${host} is broken${found}: ${why ?? 'permerror'}`
        : `the SPF of ${host} gives ${outcome.result}, not pass, for ${ip}${found}`
  return finding(
    'spf',
    subject,
    'failed',
    `${domain}'s mail fails SPF: ${what}.`,
    `Publish the SPF record that "mailstead domain records ${domain}" prints (v=spf1 a:${hostname} ~all) and make ${hostname} resolve to ${ip}, or add ${isIPv4(ip) ? 'ip4' : 'ip6'}:${ip} to the record.`,
  )
}
