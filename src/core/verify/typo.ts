import { run as suggestDomain } from '@zootools/email-spell-checker'

/** A corrected address when the domain looks like a misspelt popular one (gmial.com). */
export function suggestCorrection(address: string, asciiDomain: string): string | undefined {
  const suggestion = suggestDomain({ email: address })
  if (!suggestion || suggestion.domain.toLowerCase() === asciiDomain) return undefined
  return suggestion.full
}
