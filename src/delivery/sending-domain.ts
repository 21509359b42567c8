import { readFindings } from '../core/domains/domain.ts'
import { findDomainById } from '../core/domains/index.ts'
import { DKIM_KEY_PURPOSE } from '../core/domains/domains.service.ts'
import { returnPathHost } from '../core/domains/records.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import { unseal } from '../lib/sealed.ts'
import { TtlCache } from '../lib/ttl-cache.ts'
import type { SigningKey } from './dkim.ts'

export interface SendingDomain {
  name: string
  returnPathHost: string
  keys: SigningKey[]
}

const REMEMBER_MS = 5 * 60_000

/**
 * A sending domain's return-path host and signing keys, opened once and remembered for a few
 * minutes. The Ed25519 key signs only once its record is published: a second signature that
 * cannot be verified helps no one.
 */
export function createDomainKeys(db: Db, secret: string, clock: Clock) {
  const cache = new TtlCache<SendingDomain>(clock, REMEMBER_MS)
  return async (domainId: number): Promise<SendingDomain | undefined> => {
    const cached = cache.get(String(domainId))
    if (cached) return cached
    const row = await findDomainById(db, domainId)
    if (!row) return undefined
    const keys: SigningKey[] = [
      { domain: row.name, selector: row.dkim_selector, privateKeyPem: unseal(secret, DKIM_KEY_PURPOSE, row.dkim_private_key), algorithm: 'rsa-sha256' },
    ]
    if (readFindings(row)['dkim-ed25519']?.status === 'SUCCESS') {
      keys.push({ domain: row.name, selector: row.ed25519_selector, privateKeyPem: unseal(secret, DKIM_KEY_PURPOSE, row.ed25519_private_key), algorithm: 'ed25519-sha256' })
    }
    const domain = { name: row.name, returnPathHost: returnPathHost(row), keys }
    cache.set(String(domainId), domain)
    return domain
  }
}
