// @database
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { freePort, SOURCE_COMMAND } from '../helpers/child.ts'
import { createChildWorld, type ChildWorld } from '../helpers/child-world.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { cli } from '../helpers/cli.ts'
import { readRows } from '../helpers/direct-db.ts'
import { admin, onPostgres } from '../helpers/postgres.ts'
import { createTestApp } from '../helpers/app.ts'
import { RawSocket } from '../helpers/raw-socket.ts'
import { until, waitFor } from '../helpers/until.ts'

const GRACE_S = 3
let w: ChildWorld
let relayPort: number
let secretKey: string
/** What the running server has written to standard output: its log lines. */
let log = ''

beforeAll(async () => {
  relayPort = await freePort()
  w = await createChildWorld('stop-test-secret-stop-test-secret-0123', { delayMs: 100 }, SOURCE_COMMAND, [
    '--relay-port', String(relayPort), '--relay-allow-insecure-auth', 'true', '--stop-grace-seconds', String(GRACE_S),
    // Longer than the grace: an attempt to a slow server outlives the stop instead of timing out.
    '--smtp-timeout-seconds', '30',
  ])
  await start()
  await w.verifiedDomain()
  secretKey = JSON.parse((await cli(['key', 'create', '--project', '1', '--type', 'secret', '--json', ...w.flags])).out).key
})

afterAll(() => w.close())

// Each test stops the server its own way; the next one finds it running.
afterEach(async () => {
  if (w.child?.exitCode === null) return
  await start()
})

/**
 * `mailstead serve` on the world's data, its log (info and up) kept in `log`. Ready once it logs
 * HTTP: the last thing a start does, after the SMTP listeners (the API answers before they listen).
 */
async function start() {
  log = ''
  const child = Bun.spawn([...SOURCE_COMMAND, 'serve', ...w.flags, '--http-port', String(w.port), '--log-level', 'info'], { stdout: 'pipe', stderr: 'pipe' })
  void (async () => {
    for await (const chunk of child.stdout) log += new TextDecoder().decode(chunk)
  })()
  await until(async () => log.includes('"tag":"HTTP"') || child.exitCode !== null, (done) => done, 30_000) // a start on a loaded machine can take more than 10 s
  if (log.includes('"tag":"HTTP"')) {
    w.child = child
    return child
  }
  child.kill('SIGKILL')
  throw new Error(`the server did not start: ${await new Response(child.stderr).text()}`)
}

/** Sends SIGTERM; answers the exit code and how long the server took to exit. */
async function terminate(child: Subprocess, signal: NodeJS.Signals = 'SIGTERM') {
  const sent = Date.now()
  child.kill(signal)
  const code = await child.exited
  return { code, ms: Date.now() - sent }
}

const stopLine = () => log.split('\n').filter((line) => line.includes('"tag":"STOP"')).map((line) => JSON.parse(line))

/** Whether the relay port turns a connection away. */
const relayRefuses = () => RawSocket.open(relayPort).then((c) => (c.close(), false), () => true)

/** Waits until the stop has begun, as seen from outside: the listeners close first (SMTP and HTTP together). */
const stopBegun = () => until(relayRefuses, (refused) => refused, 3000, 20)

/** A relay session, logged in, with the envelope given and DATA begun. */
async function inTransaction(to = 'user@example.net') {
  const c = await RawSocket.open(relayPort)
  await c.reply()
  for (const [command, code] of [
    ['EHLO client.test', '250'],
    [`AUTH PLAIN ${Buffer.from(`\0app\0${secretKey}`).toString('base64')}`, '235'],
    ['MAIL FROM:<app@sender.example.com>', '250'],
    [`RCPT TO:<${to}>`, '250'],
    ['DATA', '354'],
  ] as const) {
    c.write(`${command}\r\n`)
    expect(await c.reply()).toStartWith(code)
  }
  c.write(`From: app@sender.example.com\r\nTo: ${to}\r\nSubject: Cut in two\r\n\r\nThe first half, `)
  return c
}

/** Rows of the server's database, read beside it: its SQLite file, or its PostgreSQL database. */
const readDb = <T>(query: string): Promise<T[]> => readRows<T>(w, query)

/** SQLite's own check of its file: PostgreSQL keeps no file of ours to check. */
const integrityChecked = async () => {
  if (onPostgres) return
  expect(await readDb<{ integrity_check: string }>('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }])
}

describe('SIGTERM during an SMTP relay session', () => {
  test('the message under way is accepted and queued, the server exits cleanly within the bound, and a restart delivers it', async () => {
    const c = await inTransaction()
    const sent = Date.now()
    w.child!.kill('SIGTERM')
    expect(await stopBegun()).toBe(true)
    c.write('and the second.\r\n.\r\n')
    const answer = await c.reply()
    expect(answer).toMatch(/^250 .*Queued as (\S+)/)
    const emailId = /Queued as (\S+)/.exec(answer)![1]!
    expect(await c.closedByPeer()).toContain('421')
    expect(await w.child!.exited).toBe(0)
    expect(Date.now() - sent).toBeLessThan(GRACE_S * 1000)
    expect(stopLine()).toEqual([expect.objectContaining({ msg: expect.stringMatching(/^stopped in \d+ ms$/), smtpConnectionsCut: 0, httpCut: false, claimsLeft: {} })])

    // One STOP line, so no part failed to stop; on SQLite it says what the checkpoint did (PostgreSQL checkpoints by itself: no `wal` there).
    if (onPostgres) expect(stopLine()[0]).not.toHaveProperty('wal')
    else expect(stopLine()[0].wal).toEqual({ log: expect.any(Number), checkpointed: expect.any(Number) })
    // Checkpointed and closed: no WAL is left for the next start to replay (SQLite's file).
    if (!onPostgres) expect(existsSync(join(w.dir, 'mailstead.db-wal'))).toBe(false)
    await integrityChecked()
    expect(await readDb<{ state: string }>(`SELECT state FROM deliveries WHERE email_id = '${emailId}'`)).toEqual([{ state: 'queued' }])
    await start()
    await waitFor(() => w.mx.received.some((m) => m.to.includes('user@example.net')), 'the restarted server to deliver the held message')
    const received = w.mx.received.find((m) => m.to.includes('user@example.net'))!
    expect(received.raw.toString()).toContain('The first half, and the second.')
  }, 60_000) // it starts the server again

  test('an idle connection is closed at once and does not hold the stop', async () => {
    const c = await RawSocket.open(relayPort)
    await c.reply()
    c.write('EHLO idle.test\r\n')
    await c.reply()
    const { code, ms } = await terminate(w.child!)
    expect(code).toBe(0)
    expect(ms).toBeLessThan(1500)
    expect(await c.closedByPeer()).toContain('421')
  })

  test('a transaction that outlasts the bound is cut off with a 421, and nothing of it is kept', async () => {
    const emailsBefore = (await readDb<{ n: number }>('SELECT count(*) AS n FROM emails'))[0]!.n
    const c = await inTransaction('slow@example.net')
    const { code, ms } = await terminate(w.child!)
    expect(code).toBe(0)
    expect(ms).toBeGreaterThanOrEqual(GRACE_S * 1000 - 100)
    expect(ms).toBeLessThan(GRACE_S * 1000 + 2000)
    expect(await c.closedByPeer()).toContain('421')
    expect(stopLine()).toEqual([expect.objectContaining({ smtpConnectionsCut: 1 })])
    expect((await readDb<{ n: number }>('SELECT count(*) AS n FROM emails'))[0]!.n).toBe(emailsBefore)
  })

  test('a second SIGTERM while stopping exits at once', async () => {
    const c = await inTransaction('held@example.net')
    w.child!.kill('SIGTERM')
    await stopBegun()
    const { code, ms } = await terminate(w.child!)
    expect(code).toBe(143)
    expect(ms).toBeLessThan(1000)
    c.close()
    await integrityChecked()
  })
})

describe('SIGTERM while HTTP requests are under way', () => {
  test('a request whose body is still arriving is answered, and what it wrote is kept', async () => {
    const body = JSON.stringify({ email: 'late-request@example.com' })
    const c = await RawSocket.open(w.port)
    c.write(`POST /contacts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secretKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`)
    // Nothing outside shows that the server has read the head; the pause lets it, and the test
    // holds either way (a stop that came first would also wait for this request).
    await Bun.sleep(200)
    const child = w.child!
    child.kill('SIGTERM')
    await stopBegun()
    c.write(body.slice(10))
    expect(await c.until(/\r\n\r\n\{.*\}/s)).toStartWith('HTTP/1.1 201')
    expect(await child.exited).toBe(0)
    expect(await readDb<{ email: string }>("SELECT email FROM contacts WHERE email = 'late-request@example.com'")).toHaveLength(1)
  })
})

describe('SIGTERM during a delivery round', () => {
  test('attempts in flight finish and are recorded, the rest wait in the queue, and a restart delivers each message once', async () => {
    const recipients = Array.from({ length: 60 }, (_, i) => `round${i}@example.net`)
    const batch = recipients.map((to) => ({ from: 'app@sender.example.com', to, subject: 'Round', text: 'Hi' }))
    expect((await w.api('POST', '/api/v1/emails/batch', batch)).status).toBe(200)
    const ofRound = () => w.mx.received.filter((m) => m.to[0]!.startsWith('round')).length
    await waitFor(() => ofRound() >= 10, 'ten messages of the round', 5000, 10)
    const { code, ms } = await terminate(w.child!)
    expect(code).toBe(0)
    expect(ms).toBeLessThan(GRACE_S * 1000)
    const atStop = ofRound()
    expect(atStop).toBeLessThan(60)
    const states = Object.fromEntries(
      (await readDb<{ state: string; n: number }>("SELECT state, count(*) AS n FROM deliveries WHERE recipient LIKE 'round%' GROUP BY state")).map((r) => [r.state, r.n]),
    )
    // Every message the MX took is recorded as delivered; nothing is left `sending`.
    expect(states).toEqual({ delivered: atStop, queued: 60 - atStop })
    expect(stopLine()).toEqual([expect.objectContaining({ claimsLeft: {} })])

    await start()
    // Every row delivered is the end of the round: nothing is left to send a second copy.
    const undelivered = async () => Number((await readDb<{ n: number | string }>("SELECT count(*) AS n FROM deliveries WHERE recipient LIKE 'round%' AND state <> 'delivered'"))[0]!.n)
    await waitFor(async () => (await undelivered()) === 0, 'the rest of the round to be delivered', 10_000, 50)
    expect(ofRound()).toBe(60)
    expect(new Set(w.mx.received.filter((m) => m.to[0]!.startsWith('round')).map((m) => m.to[0])).size).toBe(60)
  }, 60_000) // it starts the server again

  test('an attempt that outlasts the bound goes back to the queue, and a restart sends it', async () => {
    const slowness = { delayMs: 60_000 }
    const slow = await new FakeMx(slowness).start('127.0.0.3', w.mx.port)
    w.dns.records('slow.example', { type: 'MX', exchange: 'mx.slow.example', priority: 10 }).records('mx.slow.example', { type: 'A', address: '127.0.0.3' })
    try {
      const sent = await w.api('POST', '/api/v1/emails', { from: 'app@sender.example.com', to: 'patient@slow.example', subject: 'Slow', text: 'Hi' })
      await waitFor(() => slow.offered.length > 0, 'the message to be offered to the slow MX', 5000, 10)
      expect(slow.offered).toHaveLength(1)
      const { code, ms } = await terminate(w.child!)
      expect(code).toBe(0)
      expect(ms).toBeLessThan(GRACE_S * 1000 + 2000)
      expect(stopLine()).toEqual([expect.objectContaining({ claimsLeft: { deliveries: 1 } })])
      expect(await readDb<{ state: string }>(`SELECT state FROM deliveries WHERE email_id = '${sent.body.emailId}'`)).toEqual([{ state: 'queued' }])
      slowness.delayMs = 0
      await start()
      await waitFor(() => slow.received.length > 0, 'the restarted server to deliver to the slow MX')
      expect(slow.received.map((m) => m.to)).toEqual([['patient@slow.example']])
      // The first copy was sent too, its answer never read: at least once, as after a crash.
      expect(slow.offered).toHaveLength(2)
      const state = async () => (await readDb<{ state: string }>(`SELECT state FROM deliveries WHERE email_id = '${sent.body.emailId}'`))[0]!.state
      await waitFor(async () => (await state()) === 'delivered', 'the delivery to be recorded')
      expect(await state()).toBe('delivered')
    } finally {
      await slow.stop()
    }
  }, 60_000) // it starts the server again
})

describe('a stopped app', () => {
  test('has closed its database: its pool (and, on PostgreSQL, its listening connection) hold no connection', async () => {
    const t = await createTestApp()
    try {
      await t.app.start()
      await t.project()
      const name = onPostgres ? new URL(t.databaseFlags[1]!).pathname.slice(1) : undefined
      const connections = () =>
        admin((client) => client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]).then((r) => r.rows[0]!.n))
      if (onPostgres) expect(await connections()).toBeGreaterThan(0)
      await t.app.stop()
      await expect(t.app.db.selectFrom('projects').select('id').execute()).rejects.toThrow()
      // The server's side lets go of a closed connection a moment later.
      if (onPostgres) {
        await waitFor(async () => (await connections()) === 0, 'PostgreSQL to let go of the connections')
        expect(await connections()).toBe(0)
      }
    } finally {
      await t.close()
    }
  })
})
