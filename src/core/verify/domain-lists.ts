import disposableDomains from 'disposable-email-domains'
import disposableWildcards from 'disposable-email-domains/wildcard.json'
import freeProviders from 'email-providers/all.json'

/**
 * Forwarding services that hand out per-site addresses. Their mail reaches a real person, but the
 * address is not theirs to keep: useful to know, not a reason to refuse.
 */
const ALIAS_SERVICES = [
  'privaterelay.appleid.com', // Apple Hide My Email
  'mozmail.com', // Firefox Relay
  'relay.firefox.com',
  'duck.com', // DuckDuckGo Email Protection
  'simplelogin.com',
  'simplelogin.co',
  'simplelogin.fr',
  'slmail.me',
  'aleeas.com',
  'silomails.com',
  'slmails.com',
  '8alias.com',
  '8shield.net',
  'dralias.com',
  'anonaddy.com', // addy.io
  'anonaddy.me',
  'addy.io',
  'addymail.com',
  'passmail.net', // Proton Pass
  'passmail.com',
  'passinbox.com',
  'passfwd.com',
  '33mail.com',
  'erine.email',
  'spamgourmet.com',
  'opayq.com', // Blur masked email
] as const

const disposable = new Set<string>(disposableDomains as string[])
const disposableParents = new Set<string>(disposableWildcards as string[])
const aliases = new Set<string>(ALIAS_SERVICES)
const free = new Set<string>(freeProviders as string[])

/** The domain and each parent domain: a.b.example.com, b.example.com, example.com, com. */
const withParents = (domain: string) => domain.split('.').map((_, i, labels) => labels.slice(i).join('.'))

export const isDisposableDomain = (domain: string): boolean =>
  disposable.has(domain) || withParents(domain).some((parent) => disposableParents.has(parent))

export const isAliasDomain = (domain: string): boolean => withParents(domain).some((parent) => aliases.has(parent))

/** Free mailbox providers (Gmail, Outlook, Yahoo, ...): addresses of a person rather than a company. */
export const isFreeProviderDomain = (domain: string): boolean => free.has(domain) && !isDisposableDomain(domain)
