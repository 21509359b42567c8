import { dataVersion } from '../../db/client.ts'
import type { Db } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import { sha256Hex } from '../../lib/crypto.ts'
import { TtlCache } from '../../lib/ttl-cache.ts'
import { authenticate, type Caller } from './projects.service.ts'

const REMEMBER_MS = 60_000

/**
 * `authenticate` with a memory of the keys it has accepted. Keys and projects change through the
 * CLI, another process: any commit there moves SQLite's data_version, and the memory is dropped.
 * Code in this process that changes keys or projects calls `forget()`.
 */
export function createAuthenticator(db: Db, clock: Clock) {
  const accepted = new TtlCache<Caller>(clock, REMEMBER_MS)
  let seenVersion = -1
  return {
    async authenticate(apiKey: string | undefined): Promise<Caller> {
      const version = await dataVersion(db)
      if (version !== seenVersion) {
        accepted.clear()
        seenVersion = version
      }
      const cacheKey = apiKey ? sha256Hex(apiKey) : ''
      const known = accepted.get(cacheKey)
      if (known) return known
      const caller = await authenticate(db, apiKey)
      accepted.set(cacheKey, caller)
      return caller
    },
    forget: () => accepted.clear(),
  }
}

export type Authenticator = ReturnType<typeof createAuthenticator>
