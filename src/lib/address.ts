import { domainToASCII } from 'node:url'
import { invalid } from './errors.ts'

/** A mailbox address that passed the strict addr-spec check. */
export interface Address {
  /** The address exactly as given (after the checks, nothing is rewritten). */
  address: string
  local: string
  /** The domain as given (may be Unicode). */
  domain: string
  /** The domain in ASCII (punycode) and lower case: what DNS is asked about. */
  asciiDomain: string
  /** What addresses are matched by: lower-cased local part @ ASCII domain. */
  key: string
}

export type AddressCheck = { ok: true; value: Address } | { ok: false; reason: string }

// RFC 5322 atext, plus any non-ASCII character (RFC 6531 internationalised local parts).
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+\/=?^_`{|}~\u0080-\uFFFF-]+(\.[A-Za-z0-9!#$%&'*+\/=?^_`{|}~\u0080-\uFFFF-]+)*$/
// A quoted local part: printable ASCII or escaped pairs, no bare quote or backslash.
const QUOTED = /^"([\x20\x21\x23-\x5B\x5D-\x7E\u0080-\uFFFF]|\\[\x20-\x7E])*"$/
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007F-\u009F\u2028\u2029\uFEFF]/

/**
 * Checks an addr-spec (RFC 5321/5322, with RFC 6531 internationalisation) the way it must be for an
 * address we store and send to: well-formed Unicode, no display name, no comments, no whitespace, local part at most 64
 * octets, whole address at most 254, a domain of LDH labels with a non-numeric top-level label.
 * Header parsers accept much more than this, which is why this is not left to one.
 */
export function checkAddress(input: string): AddressCheck {
  // A lone UTF-16 surrogate has no UTF-8 form: no column, SMTP command or DNS query can carry it.
  if (!input.isWellFormed()) return fail('it is not well-formed Unicode (it holds a lone UTF-16 surrogate)')
  if (CONTROL_OR_SPACE.test(input.replace(/^"[^"]*"@/, '""@'))) {
    return fail('it contains spaces or control characters')
  }
  const at = input.lastIndexOf('@')
  if (at <= 0 || at === input.length - 1) return fail('it must look like name@domain')
  const local = input.slice(0, at)
  const domain = input.slice(at + 1)
  if (Buffer.byteLength(local) > 64) return fail('the part before @ is longer than 64 characters')
  if (Buffer.byteLength(input) > 254) return fail('it is longer than 254 characters')
  if (!DOT_ATOM.test(local) && !QUOTED.test(local)) return fail('the part before @ is not allowed')
  const domainCheck = checkDomain(domain)
  if (!domainCheck.ok) return fail(domainCheck.reason)
  const asciiDomain = domainCheck.value
  const key = `${local.toLowerCase()}@${asciiDomain}`
  return { ok: true, value: { address: input, local, domain, asciiDomain, key } }
}

/** The checked address, or a 422 naming `field`. */
export function requireAddress(email: string, field = 'email'): Address {
  const result = checkAddress(email)
  if (!result.ok) throw invalid(field, result.reason)
  return result.value
}

export type DomainCheck = { ok: true; value: string } | { ok: false; reason: string }

/**
 * The ASCII (punycode), lower-case form of a mail domain, or the reason it cannot be one: LDH
 * labels of at most 63 octets, at least two of them, at most 253 octets, no IP address.
 */
export function checkDomain(domain: string): DomainCheck {
  const no = (reason: string) => ({ ok: false as const, reason })
  if (!domain.isWellFormed()) return no('the domain is not well-formed Unicode')
  if (domain.startsWith('[')) return no('address literals such as [192.0.2.1] are not accepted')
  if (domain.endsWith('.')) return no('the domain must not end with a dot')
  const ascii = domainToASCII(domain).toLowerCase()
  if (!ascii) return no('the domain is not a valid host name')
  if (ascii.length > 253) return no('the domain is longer than 253 characters')
  const labels = ascii.split('.')
  if (labels.length < 2) return no('the domain needs at least one dot, as in example.com')
  if (!labels.every((label) => LABEL.test(label))) return no('the domain is not a valid host name')
  if (/^[0-9]+$/.test(labels.at(-1)!)) return no('the domain is an IP address, not a host name')
  return { ok: true, value: ascii }
}

const fail = (reason: string) => ({ ok: false as const, reason: `The address is not valid: ${reason}.` })
