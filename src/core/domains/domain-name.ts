import { parse } from 'tldts'
import { checkDomain } from '../../lib/address.ts'
import { invalid } from '../../lib/errors.ts'

/** A sending domain's name as stored: checked, lower case, internationalised names in punycode. */
export function checkDomainName(input: string): string {
  if (/[\s\u0000-\u001f\u007f]/.test(input)) throw invalid('name', 'must not contain spaces or control characters')
  const result = checkDomain(input)
  if (!result.ok) throw invalid('name', `${result.reason.replace(/^the domain/, 'the name')}`)
  if (result.value === 'localhost' || result.value.endsWith('.localhost')) throw invalid('name', 'localhost cannot send mail')
  return result.value
}

/** The labels before the registrable domain (`mail` of mail.example.com), or null for a registrable domain. */
export function subdomainOf(name: string): string | null {
  const { subdomain } = parse(name)
  return subdomain ? subdomain : null
}
