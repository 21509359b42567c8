import { domainOf, SANDBOX_SELECTOR, sandboxKeyOf } from '../core/projects/sandbox.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import { TtlCache } from '../lib/ttl-cache.ts'
import { SANDBOX_HOST } from '../core/projects/sandbox-host.ts'
import type { SendingDomain } from './sending-domain.ts'

const REMEMBER_MS = 5 * 60_000

/**
 * What a sandbox email is signed with: its project's sandbox key, d= the domain of its From, so
 * that a receiver's DKIM check can be shown on it. The key is made at its first use, opened once
 * and remembered for a few minutes.
 */
export function createSandboxKeys(db: Db, write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>, secret: string, clock: Clock) {
  const cache = new TtlCache<string>(clock, REMEMBER_MS)
  const opening = new Map<number, Promise<string>>()

  /** The key, made or opened once however many of the project's emails ask meanwhile. */
  function keyOf(projectId: number): Promise<string> {
    const known = cache.get(String(projectId))
    if (known) return Promise.resolve(known)
    let pending = opening.get(projectId)
    if (!pending) {
      pending = sandboxKeyOf(db, write, secret, projectId)
        .then((key) => (cache.set(String(projectId), key.privateKeyPem), key.privateKeyPem))
        .finally(() => opening.delete(projectId))
      opening.set(projectId, pending)
    }
    return pending
  }

  return async (projectId: number, from: string): Promise<SendingDomain | undefined> => {
    const name = domainOf(from)
    if (!name) return undefined
    const privateKeyPem = await keyOf(projectId)
    return { name, returnPathHost: SANDBOX_HOST, keys: [{ domain: name, selector: SANDBOX_SELECTOR, privateKeyPem, algorithm: 'rsa-sha256' }] }
  }
}
