import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort } from '../helpers/child.ts'
import { waitFor } from '../helpers/until.ts'

const ROOT = join(import.meta.dir, '..', '..')
const dataDir = mkdtempSync(join(tmpdir(), 'mailstead-npm-start-'))
let npm: Subprocess | undefined

afterAll(() => {
  npm?.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** Waits until `condition` holds, for `ms` at most. */
const until = (condition: () => Promise<boolean>, what: string, ms = 15_000) => waitFor(condition, `until ${what}`, ms, 50)

test('SIGTERM to the PID of `npm start` reaches the server: it stops and its port closes', async () => {
  const [http, mx, relay] = await Promise.all([freePort(), freePort(), freePort()])
  // The user's environment without any MAILSTEAD_* of the machine running the tests.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILSTEAD_')))
  npm = Bun.spawn(['npm', 'start', '--silent'], {
    cwd: ROOT,
    stdout: 'ignore',
    stderr: 'pipe',
    env: { ...env, MAILSTEAD_DATA_DIR: dataDir, MAILSTEAD_HTTP_PORT: String(http), MAILSTEAD_MX_PORT: String(mx), MAILSTEAD_RELAY_PORT: String(relay), MAILSTEAD_RELAY_TLS_PORT: 'off' },
  })
  await until(async () => (await fetch(`http://127.0.0.1:${http}/health`).catch(() => undefined))?.ok === true, 'the server answers /health')
  npm.kill('SIGTERM')
  // Without the signal the server would stay up (orphaned) after npm and its shell were gone.
  await until(async () => !(await listening(http)) && !(await listening(mx)), 'the ports close', 10_000)
  await npm.exited
  // The server's own word that the signal reached it (not that it died with its shell).
  expect(await new Response(npm.stderr as ReadableStream).text()).toContain('SIGTERM received, stopping')
}, 30_000)
