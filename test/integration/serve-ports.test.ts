import { afterAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, SOURCE_COMMAND } from '../helpers/child.ts'
import { UNPRIVILEGED_PORTS } from '../../src/smtp/listeners.ts'
import { until } from '../helpers/until.ts'

/**
 * `mailstead serve` as a normal user runs it. The tests run as root here, so the server runs as
 * `nobody` (setpriv): the kernel itself refuses it ports below 1024, as it would a user's shell.
 */
const AS_USER = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []

const dirs: string[] = []
const children: Subprocess[] = []
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A data directory the unprivileged user may write. */
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-ports-'))
  chmodSync(dir, 0o777)
  dirs.push(dir)
  return dir
}

const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILSTEAD_')))

/** Starts `serve` as the user; answers the child, its /health once it answers, and its log so far. */
async function serveAsUser(env: Record<string, string>) {
  const http = await freePort()
  const child = Bun.spawn([...AS_USER, ...SOURCE_COMMAND, 'serve'], {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...cleanEnv(), MAILSTEAD_DATA_DIR: dataDir(), MAILSTEAD_HTTP_PORT: String(http), MAILSTEAD_LOG_LEVEL: 'info', ...env },
  })
  children.push(child)
  let log = ''
  void (async () => {
    for await (const chunk of child.stdout) log += new TextDecoder().decode(chunk)
  })()
  await until(async () => log.includes('"tag":"HTTP"') || child.exitCode !== null, (done) => done, 30_000)
  const health = await fetch(`http://127.0.0.1:${http}/health`)
  return { child, health: { status: health.status, body: (await health.json()) as { listeners: Record<string, { state: string; port?: number }> } }, log: () => log }
}

describe('serve as a normal user', () => {
  test('the default SMTP ports need root: the listeners move to 2525 and 2587, the log says so once, and /health is ok', async () => {
    const { health, log } = await serveAsUser({})
    expect(health.status).toBe(200)
    expect(health.body.listeners.mx).toEqual({ state: 'up', port: UNPRIVILEGED_PORTS.mx })
    expect(health.body.listeners.relay).toEqual({ state: 'up', port: UNPRIVILEGED_PORTS.relay })
    const moved = log().split('\n').filter((line) => line.includes('need root'))
    expect(moved).toHaveLength(1)
    expect(moved[0]).toContain('on 2525 instead of 25 (MAILSTEAD_MX_PORT)')
    expect(moved[0]).toContain('on 2587 instead of 587 (MAILSTEAD_RELAY_PORT)')
    expect(log()).not.toContain('"level":"error"')
  }, 30_000)

  test('a port set explicitly still fails loudly: that listener is down and /health is degraded', async () => {
    const { health, log } = await serveAsUser({ MAILSTEAD_MX_PORT: '25', MAILSTEAD_RELAY_PORT: 'off' })
    expect(health.status).toBe(503)
    expect(health.body.listeners.mx).toMatchObject({ state: 'down', port: 25 })
    expect(log()).toContain('cannot listen on 127.0.0.1:25 (the port needs root or CAP_NET_BIND_SERVICE); change MAILSTEAD_MX_PORT')
    expect(log()).not.toContain(':2525')
  }, 30_000)
})

describe('an HTTP port in use', () => {
  test('serve ends with one line naming the setting and the port, not a stack trace', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const child = Bun.spawn([...SOURCE_COMMAND, 'serve'], {
        stdout: 'ignore',
        stderr: 'pipe',
        env: { ...cleanEnv(), MAILSTEAD_DATA_DIR: dataDir(), MAILSTEAD_HTTP_PORT: String(port), MAILSTEAD_MX_PORT: 'off', MAILSTEAD_RELAY_PORT: 'off' },
      })
      const [code, err] = await Promise.all([child.exited, new Response(child.stderr).text()])
      expect(code).toBe(1)
      expect(err.trim()).toBe(`error: Cannot listen for HTTP on 127.0.0.1:${port}: it is in use. Change httpPort (MAILSTEAD_HTTP_PORT, --http-port).`)
    } finally {
      blocker.close()
    }
  }, 30_000)
})
