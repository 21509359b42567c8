// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { listKeys, revokeKey, setProjectDisabled } from '../../src/core/projects/projects.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'
import { mailsteadChild } from '../helpers/cli-child.ts'
import { HttpSocket } from '../helpers/http-socket.ts'
import { onPostgres } from '../helpers/postgres.ts'

let t: TestApp
let flags: string[]

beforeAll(async () => {
  t = await createTestApp()
  await t.app.start()
  flags = ['--data-dir', t.dataDir, ...t.databaseFlags, '--secret', 'test-secret-test-secret-test-secret', '--dns-servers', '127.0.0.1:9']
})

afterAll(() => t.close())

/**
 * Until another process's commit shows: at once on SQLite (its data_version); PostgreSQL's change
 * signal is read at most once a second (src/db/client.ts, changeVersion).
 */
const signalled = () => (onPostgres ? Bun.sleep(1_100) : Promise.resolve())

const open = () => HttpSocket.open(Number(new URL(t.app.url).port))
const keyIdOf = async (projectId: number, type: 'secret' | 'public') => (await listKeys(t.app.db, projectId)).find((key) => key.type === type)!.id
const track = (socket: HttpSocket, key: string) => socket.request('POST', '/v1/track', { key, body: { email: 'reader@example.com', event: 'seen' } })

describe('revocation on a connection kept open', () => {
  test('a key revoked by the CLI, in another process, is refused at the next request on the same connection', async () => {
    const project = await t.project('Revoked by the CLI')
    const socket = await open()
    for (let i = 0; i < 3; i++) expect((await socket.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    const revoked = await mailsteadChild(['key', 'revoke', String(await keyIdOf(project.id, 'secret')), '--yes', ...flags])
    expect(revoked.code).toBe(0)
    await signalled()
    const refused = await socket.request('GET', '/contacts', { key: project.secretKey })
    expect(refused).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } })
    expect(socket.closed).toBe(false)
    socket.close()
  })

  test('a project disabled by the CLI is refused at once for both its keys, and served again once enabled', async () => {
    const project = await t.project('Disabled by the CLI')
    const socket = await open()
    expect((await socket.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    expect((await track(socket, project.publicKey)).status).toBe(200)
    expect((await cli(['project', 'disable', String(project.id), '--yes', ...flags])).code).toBe(0)
    expect(await socket.request('GET', '/contacts', { key: project.secretKey })).toMatchObject({ status: 403, body: { code: 'PROJECT_DISABLED' } })
    expect(await track(socket, project.publicKey)).toMatchObject({ status: 403, body: { code: 'PROJECT_DISABLED' } })
    expect((await cli(['project', 'enable', String(project.id), ...flags])).code).toBe(0)
    expect((await socket.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    socket.close()
  })

  test('a key revoked or a project disabled in this process is refused at the next request', async () => {
    const project = await t.project('Changed in process')
    const socket = await open()
    expect((await track(socket, project.publicKey)).status).toBe(200)
    expect((await socket.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    const publicKeyId = await keyIdOf(project.id, 'public')
    await t.app.writer.run((trx) => revokeKey(trx, publicKeyId, Date.now()))
    expect((await track(socket, project.publicKey)).status).toBe(401)
    expect((await socket.request('GET', '/contacts', { key: project.secretKey })).status).toBe(200)
    await t.app.writer.run((trx) => setProjectDisabled(trx, project.id, true, Date.now()))
    expect((await socket.request('GET', '/contacts', { key: project.secretKey })).status).toBe(403)
    socket.close()
  })
})
