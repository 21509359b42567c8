// @database
import { afterAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import pg from 'pg'
import { listenToOthers } from '../../src/cluster/wakeups.ts'
import { changeVersion } from '../../src/db/client.ts'
import { CHANGES_CHANNEL } from '../../src/db/notifications.ts'
import { openPostgres } from '../../src/db/postgres.ts'
import { silentLogger } from '../../src/lib/logger.ts'
import { admin, freshPostgres, type TestDatabase } from '../helpers/postgres.ts'
import { until } from '../helpers/until.ts'

// PostgreSQL's own announcement of new work, whichever database the rest of the suite runs on.
const made: TestDatabase[] = []
afterAll(async () => {
  for (const database of made) await database.drop()
})

/** Waits until the listening connection on `database` has run its last LISTEN: from then on, what is announced is heard. */
async function untilListening(database: string) {
  const last = `LISTEN ${pg.escapeIdentifier(CHANGES_CHANNEL)}`
  const ready = () =>
    admin((client) => client.query(`SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND state = 'idle' AND query = $2`, [database, last])).then((found) => found.rowCount === 1)
  expect(await until(ready, (yes) => yes, 5000, 20)).toBe(true)
}

describe('new work wakes an idle process on PostgreSQL', () => {
  test('an insert of work by another connection wakes the loop that takes it; updates wake nobody', async () => {
    const target = await freshPostgres()
    made.push(target)
    const woken: string[] = []
    const other = await openPostgres(target.url)
    const listening = listenToOthers(target.url, other.db, { deliveries: () => woken.push('deliveries'), workflow_executions: () => woken.push('workflows') }, silentLogger)!
    try {
      await untilListening(target.name)
      await sql`INSERT INTO projects (name, created_at, updated_at) VALUES ('P', 1, 1)`.execute(other.db)
      await sql`INSERT INTO emails (id, project_id, from_address, recipients, subject, message_id, status, created_at, updated_at)
        SELECT 'e1', id, 'a@b.example', '{}', 'S', '<m@x>', 'QUEUED', 1, 1 FROM projects`.execute(other.db)
      await sql`INSERT INTO deliveries (email_id, project_id, recipient, recipient_domain, state, next_attempt_at, expires_at, created_at, updated_at)
        SELECT 'e1', id, 'x@y.example', 'y.example', 'queued', 1, 2, 1, 1 FROM projects`.execute(other.db)
      await until(async () => woken.length, (n) => n > 0, 5000, 20)
      expect(woken).toEqual(['deliveries'])
      await sql`UPDATE deliveries SET state = 'sending'`.execute(other.db)
      await Bun.sleep(300) // a notice comes within milliseconds of the commit; none should come
      expect(woken).toEqual(['deliveries'])
    } finally {
      await listening.close()
      await other.close()
    }
  })

  test('a listening connection the server drops is made again, and every loop is woken for what it may have missed', async () => {
    const target = await freshPostgres()
    made.push(target)
    const woken: string[] = []
    const own = await openPostgres(target.url)
    const listening = listenToOthers(target.url, own.db, { deliveries: () => woken.push('deliveries'), contact_imports: () => woken.push('imports') }, silentLogger)!
    try {
      await untilListening(target.name)
      const ended = await admin((client) =>
        client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN%'`, [target.name]),
      )
      expect(ended.rowCount).toBe(1)
      await until(async () => woken.length, (n) => n >= 2, 5000, 20)
      expect(woken.sort()).toEqual(['deliveries', 'imports'])
    } finally {
      await listening.close()
      await own.close()
    }
  })

  test('a change to keys or projects committed by another process is seen at once, not a second later', async () => {
    const target = await freshPostgres()
    made.push(target)
    const [own, other] = [await openPostgres(target.url), await openPostgres(target.url)]
    const listening = listenToOthers(target.url, own.db, {}, silentLogger)!
    try {
      await untilListening(target.name)
      const read = Date.now()
      const before = await changeVersion(own.db)
      await sql`INSERT INTO projects (name, created_at, updated_at) VALUES ('P', 1, 1)`.execute(other.db)
      // Trusted for a second once read, unless announced: well before the second is up it has moved.
      let now = before
      while (now === before && Date.now() - read < 900) {
        await Bun.sleep(20)
        now = await changeVersion(own.db)
      }
      expect(now).toBeGreaterThan(before)
    } finally {
      await listening.close()
      await own.close()
      await other.close()
    }
  })

  test('SQLite (no URL) has nothing to listen to', async () => {
    const target = await freshPostgres()
    made.push(target)
    const any = await openPostgres(target.url)
    try {
      expect(listenToOthers(null, any.db, { deliveries: () => {} }, silentLogger)).toBeUndefined()
    } finally {
      await any.close()
    }
  })
})
