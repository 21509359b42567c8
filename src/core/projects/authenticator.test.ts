// @database
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { onPostgres, twoConnections } from '../../../test/helpers/postgres.ts'
import type { Database } from '../../db/client.ts'
import { systemClock } from '../../lib/clock.ts'
import { createAuthenticator } from './authenticator.ts'
import { ManualClock } from '../../../test/helpers/clock.ts'
import { createKey, createProject, listKeys, revokeKey, setProjectDisabled, setProjectRateLimit } from './projects.service.ts'

/** The server's connection, and another one to the same database, as the CLI's. */
let server: Database
let cliProcess: Database
let connections: Awaited<ReturnType<typeof twoConnections>>

beforeEach(async () => {
  connections = await twoConnections()
  ;({ first: server, second: cliProcess } = connections)
})

afterEach(() => connections.close())

/** Until another connection's commit shows: at once on SQLite; PostgreSQL's change signal is read at most once a second. */
const signalled = () => (onPostgres ? Bun.sleep(1_100) : Promise.resolve())

describe('the authenticator', () => {
  test('remembers accepted keys, and forgets them when another connection commits', async () => {
    const project = await createProject(server.db, 'P', 0)
    const authenticator = createAuthenticator(server.db, systemClock)
    expect((await authenticator.authenticate(project.secretKey)).project.rateLimitPerMinute).toBeNull()

    await setProjectRateLimit(cliProcess.db, project.id, 7, 0)
    await signalled()
    expect((await authenticator.authenticate(project.secretKey)).project.rateLimitPerMinute).toBe(7)

    const [secret] = await listKeys(cliProcess.db, project.id)
    await revokeKey(cliProcess.db, secret!.id, 0)
    await signalled()
    await expect(authenticator.authenticate(project.secretKey)).rejects.toThrow('Invalid API key')
  })

  test('a change made in this process shows after forget()', async () => {
    const project = await createProject(server.db, 'P', 0)
    const authenticator = createAuthenticator(server.db, systemClock)
    await authenticator.authenticate(project.secretKey)
    await setProjectRateLimit(server.db, project.id, 9, 0)
    authenticator.forget()
    expect((await authenticator.authenticate(project.secretKey)).project.rateLimitPerMinute).toBe(9)
  })

  test('unknown keys are not remembered', async () => {
    const authenticator = createAuthenticator(server.db, systemClock)
    await expect(authenticator.authenticate('sk_' + 'x'.repeat(43))).rejects.toThrow('Invalid API key')
    await expect(authenticator.authenticate(undefined)).rejects.toThrow('Missing API key')
  })

  test('a caller is confirmed until another connection revokes its key or disables its project', async () => {
    const [first, second] = [await createProject(server.db, 'P', 0), await createProject(server.db, 'Q', 0)]
    const authenticator = createAuthenticator(server.db, systemClock)
    const [callerOne, callerTwo] = [await authenticator.authenticate(first.secretKey), await authenticator.authenticate(second.secretKey)]
    await authenticator.confirm(callerOne)
    await authenticator.confirm(callerOne)

    const [secret] = await listKeys(cliProcess.db, first.id)
    await revokeKey(cliProcess.db, secret!.id, 0)
    await signalled()
    await expect(authenticator.confirm(callerOne)).rejects.toMatchObject({ status: 401, message: expect.stringContaining('revoked') })
    await authenticator.confirm(callerTwo)

    await setProjectDisabled(cliProcess.db, second.id, true, 0)
    await signalled()
    await expect(authenticator.confirm(callerTwo)).rejects.toMatchObject({ status: 403, code: 'PROJECT_DISABLED' })
  })

  test("a key's use is written once a minute, however many requests it makes, and the writes land", async () => {
    const clock = new ManualClock()
    const project = await createProject(server.db, 'P', clock.now())
    const writes: Array<Promise<unknown>> = []
    const authenticator = createAuthenticator(server.db, clock, undefined, (work) => {
      const written = work(server.db)
      writes.push(written)
      return written
    })
    for (let i = 0; i < 100; i++) await authenticator.authenticate(project.secretKey)
    expect(writes).toHaveLength(1)
    clock.advance(59_999)
    await authenticator.authenticate(project.secretKey)
    expect(writes).toHaveLength(1)
    clock.advance(1)
    await authenticator.authenticate(project.secretKey)
    expect(writes).toHaveLength(2)
    await Promise.all(writes)
    const [secret] = await listKeys(server.db, project.id)
    expect(secret!.lastUsedAt).toBe(new Date(clock.now()).toISOString())
  })

  test('a remembered key, and an SMTP session logged in with it, are refused once it expires', async () => {
    const clock = new ManualClock()
    const project = await createProject(server.db, 'P', clock.now())
    const key = await createKey(server.db, project.id, 'secret', clock.now(), { name: 'Soon', expiresAt: clock.now() + 1_000 })
    const authenticator = createAuthenticator(server.db, clock)
    const caller = await authenticator.authenticate(key.key)
    await authenticator.confirm(caller)
    clock.advance(1_000)
    await expect(authenticator.authenticate(key.key)).rejects.toMatchObject({ status: 401, message: expect.stringContaining('expired') })
    await expect(authenticator.confirm(caller)).rejects.toMatchObject({ status: 401, message: expect.stringContaining('expired') })
  })
})
