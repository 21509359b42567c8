// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { MIGRATIONS, POSTGRES_MIGRATIONS } from '../../migrations/index.ts'
import { createChildWorld, type ChildWorld } from '../helpers/child-world.ts'
import { freePort, SOURCE_COMMAND } from '../helpers/child.ts'
import { openDirect } from '../helpers/direct-db.ts'
import { onPostgres } from '../helpers/postgres.ts'
import { waitFor } from '../helpers/until.ts'

/*
 * Processes of two versions on one database, as in a rolling upgrade: the newer one migrates it
 * further. The older one, running, goes on; started again, it refuses the database.
 */

let w: ChildWorld

beforeAll(async () => {
  w = await createChildWorld('versions-test-secret-versions-test-secret', {}, undefined, ['--log-level', 'warn'])
})

afterAll(() => w.close())

const FUTURE = '9999_from_a_newer_mailstead'
const SETTING = onPostgres ? 'MAILSTEAD_DATABASE_URL (--database-url)' : 'MAILSTEAD_DATA_DIR (--data-dir)'
const LAST = (onPostgres ? POSTGRES_MIGRATIONS : MIGRATIONS).at(-1)!.name

/** What a newer Mailstead's migration leaves: its row, a table and a column this one does not know. */
async function migrateAsNewer() {
  const database = await openDirect(w)
  try {
    await sql`CREATE TABLE future_notes (id INTEGER PRIMARY KEY, note TEXT)`.execute(database.db)
    await sql`ALTER TABLE contacts ADD COLUMN future_flag INTEGER`.execute(database.db)
    await sql`INSERT INTO migrations (name, applied_at) VALUES (${FUTURE}, ${Date.now()})`.execute(database.db)
  } finally {
    await database.close()
  }
}

/** Everything a start could have written before it refused: the migrations, the leases, the claims. */
async function snapshot() {
  const database = await openDirect(w)
  try {
    return {
      migrations: await database.db.selectFrom('migrations').select('name').orderBy('name').execute(),
      leases: await database.db.selectFrom('leases').selectAll().orderBy('name').execute(),
      deliveries: await database.db.selectFrom('deliveries').select(['id', 'state', 'claimed_by']).orderBy('id').execute(),
    }
  } finally {
    await database.close()
  }
}

/** `mailstead serve` on the world's data, to its exit (or 30 s). */
async function serveUntilExit() {
  const child = Bun.spawn([...SOURCE_COMMAND, 'serve', ...w.flags, '--http-port', String(await freePort())], { stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const [code, err] = await Promise.all([child.exited, new Response(child.stderr).text()])
  clearTimeout(timer)
  return { code, err }
}

describe('processes of two migration versions on one database', () => {
  test('a running process keeps serving after a newer one migrated the database; started again, it refuses it, naming the setting, and writes nothing', async () => {
    await w.start()
    await w.verifiedDomain()
    await migrateAsNewer()

    // It goes on with the code it has: the newer version's additions are nothing to it.
    const sent = await w.api('POST', '/api/v1/emails', { from: 'app@sender.example.com', to: 'still@example.net', subject: 'Still here', text: 'Hi' })
    expect(sent.status).toBe(200)
    expect((await w.api('POST', '/contacts', { email: 'new@example.net' })).status).toBeLessThan(300)
    await waitFor(() => w.mx.received.length > 0, 'the message to be delivered', 10_000)
    expect(w.mx.received.flatMap((m) => m.to)).toEqual(['still@example.net'])

    await w.kill()
    const before = await snapshot()
    const { code, err } = await serveUntilExit()
    expect(code).toBe(1)
    expect(err).toContain(`error: ${SETTING}: the database was migrated by a newer Mailstead: migration ${FUTURE} is unknown to this one, whose last is ${LAST}.`)
    expect(err).toContain('nothing was changed')
    expect(await snapshot()).toEqual(before)
  }, 60_000)
})
