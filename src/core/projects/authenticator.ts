import { dataVersion } from '../../db/client.ts'
import type { Db } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import { sha256Hex } from '../../lib/crypto.ts'
import { TtlCache } from '../../lib/ttl-cache.ts'
import { authenticate, projectChanges, type Caller } from './projects.service.ts'

const REMEMBER_MS = 60_000

/**
 * `authenticate` with a memory of the keys it has accepted, checked at every request, so that a
 * revoked key or a disabled project is refused at its next request, on a connection kept open
 * too. Keys and projects change through the CLI, another process: any commit there moves
 * SQLite's data_version. In this process they change through the projects service, which counts
 * its changes. Either way the memory is dropped.
 */
export function createAuthenticator(db: Db, clock: Clock) {
  const accepted = new TtlCache<Caller>(clock, REMEMBER_MS)
  let seenVersion = ''
  return {
    async authenticate(apiKey: string | undefined): Promise<Caller> {
      const version = `${await dataVersion(db)} ${projectChanges()}`
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
