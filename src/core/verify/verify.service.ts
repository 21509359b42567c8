import type { Clock } from '../../lib/clock.ts'
import type { Resolver } from '../../lib/dns.ts'
import { requireAddress } from '../../lib/address.ts'
import { createDomainLookup, type DomainDns } from './domain-dns.ts'
import { isAliasDomain, isDisposableDomain, isFreeProviderDomain } from './domain-lists.ts'
import { looksRandom } from './random-input.ts'
import { suggestCorrection } from './typo.ts'

export interface Verification {
  email: string
  valid: boolean
  isDisposable: boolean
  isAlias: boolean
  isTypo: boolean
  isPlusAddressed: boolean
  isRandomInput: boolean
  isPersonalEmail: boolean
  domainExists: boolean
  hasWebsite: boolean
  hasMxRecords: boolean
  reasons: string[]
  suggestedEmail?: string
}

/**
 * Checks an address without sending to it. A malformed address is refused (422) by
 * `requireAddress`; anything well-formed gets a result. `valid` means mail to it can be delivered
 * somewhere: the domain has a mail server, or an address record to fall back on.
 */
export function createVerifier(resolver: Resolver, clock: Clock) {
  const lookupDomain = createDomainLookup(resolver, clock)
  return async (email: string): Promise<Verification> => {
    const address = requireAddress(email)
    const domain = address.asciiDomain
    const dns = await lookupDomain(domain)
    const suggestedEmail = suggestCorrection(address.address, domain)
    const flags: Flags = {
      isDisposable: isDisposableDomain(domain),
      isAlias: isAliasDomain(domain),
      isTypo: suggestedEmail !== undefined,
      isPlusAddressed: /^[^+]+\+[^+]+/.test(address.local),
      isRandomInput: looksRandom(address.local),
      isPersonalEmail: isFreeProviderDomain(domain),
    }
    return {
      email: address.address,
      valid: !dns.unavailable && !dns.nullMx && (dns.hasMx || dns.hasAddress),
      ...flags,
      domainExists: dns.exists,
      hasWebsite: dns.hasAddress,
      hasMxRecords: dns.hasMx,
      reasons: explain(domain, dns, flags, suggestedEmail),
      ...(suggestedEmail && { suggestedEmail }),
    }
  }
}

export type Verifier = ReturnType<typeof createVerifier>

type Flags = Pick<Verification, 'isDisposable' | 'isAlias' | 'isTypo' | 'isPlusAddressed' | 'isRandomInput' | 'isPersonalEmail'>

/** Each finding as a sentence, the DNS verdict first. */
function explain(domain: string, dns: DomainDns, flags: Flags, suggestion?: string): string[] {
  return [
    dnsFinding(domain, dns),
    flags.isDisposable && `${domain} is a disposable (throwaway) email provider.`,
    flags.isAlias && `${domain} is an email forwarding service: the address is an alias for another one.`,
    suggestion && `The domain looks like a typo: did you mean ${suggestion}?`,
    flags.isPlusAddressed && 'The address uses plus addressing (a +tag after the name).',
    flags.isRandomInput && 'The part before @ looks like random characters rather than a name.',
    flags.isPersonalEmail && `${domain} is a free email provider, so this is likely a personal address.`,
  ].filter((reason): reason is string => typeof reason === 'string')
}

function dnsFinding(domain: string, dns: DomainDns): string {
  if (dns.unavailable) return `The DNS records of ${domain} could not be checked: ${dns.unavailable}. Try again later.`
  if (!dns.exists) return `The domain ${domain} does not exist.`
  if (dns.nullMx) return `The domain ${domain} states that it accepts no email (null MX record).`
  if (!dns.hasMx && !dns.hasAddress) {
    return `The domain ${domain} has no mail server (MX) and no address record, so it cannot receive email.`
  }
  if (!dns.hasMx) return `The domain ${domain} has no MX record; mail would go to its address record instead.`
  return `The domain ${domain} has a mail server (MX record), so the address can receive email.`
}
