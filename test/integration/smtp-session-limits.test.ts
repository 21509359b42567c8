// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeCertificate } from '../helpers/certificates.ts'
import { RawSocket } from '../helpers/raw-socket.ts'
import { waitFor } from '../helpers/until.ts'
import { relaySession, sendMessage } from '../helpers/relay-client.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

let w: World
const ports = { mx: 0, relay: 0, relayTls: 0 }
const opened: RawSocket[] = []
const MAX_COMMANDS = 8

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-limits-'))
  const { cert, key } = await makeCertificate([HOSTNAME])
  writeFileSync(join(dir, 'cert.pem'), cert)
  writeFileSync(join(dir, 'key.pem'), key)
  w = await createWorld({
    started: true,
    settings: {
      'mx-port': '0',
      'relay-port': '0',
      'relay-tls-port': '0',
      'tls-cert': join(dir, 'cert.pem'),
      'tls-key': join(dir, 'key.pem'),
      'smtp-max-connections': '4',
      'smtp-max-connections-per-ip': '2',
      'smtp-command-timeout-seconds': '2',
      'smtp-data-timeout-seconds': '2',
      'smtp-anonymous-timeout-seconds': '6',
      'smtp-max-commands-without-message': String(MAX_COMMANDS),
    },
  })
  const listeners = w.t.app.listeners()!
  Object.assign(ports, { mx: listeners.mx.port, relay: listeners.relay.port, relayTls: listeners.relayTls.port })
})

afterAll(async () => {
  for (const socket of opened) socket.close()
  await w.close()
})

const LISTENERS = [['the MX listener', 'mx'], ['the relay', 'relay']] as const

/** A connection from `from` that has read the server's first reply. */
async function client(port: number, from = '127.0.0.1') {
  const socket = await RawSocket.open(port, '127.0.0.1', from)
  opened.push(socket)
  return { socket, greeting: await socket.reply() }
}

/** Writes `text` one byte every `everyMs` until the connection closes; answers all it read and how long that took. */
async function trickle(socket: RawSocket, text: string, everyMs = 250) {
  const started = performance.now()
  let read = ''
  for (let i = 0; !socket.closed && i < 400; i++) {
    socket.write(text[i % text.length]!)
    read += await socket.until(/(?!)/, everyMs).catch((error: Error) => /read: (".*")$/.exec(error.message)?.[1] ?? '')
  }
  read += await socket.closedByPeer(5000).catch(() => '')
  return { read, seconds: (performance.now() - started) / 1000, closed: socket.closed }
}

describe('the SMTP listeners bound what strangers can hold', () => {
  test.each(LISTENERS)('%s takes at most its configured sessions in all, from every address together, and then a new one again', async (_, name) => {
    const held = [await client(ports[name], '127.0.0.2'), await client(ports[name], '127.0.0.2'), await client(ports[name], '127.0.0.3'), await client(ports[name], '127.0.0.3')]
    expect(held.map((c) => c.greeting.slice(0, 3))).toEqual(['220', '220', '220', '220'])
    const fifth = await client(ports[name], '127.0.0.4')
    expect(fifth.greeting).toMatch(/^421 /)
    await fifth.socket.closedByPeer()
    held[0]!.socket.write('QUIT\r\n')
    await held[0]!.socket.closedByPeer()
    // The server counts the closed session out a moment after it closes.
    await waitFor(async () => (await client(ports[name], '127.0.0.4')).greeting.startsWith('220'), 'a session to be free again', 5000, 50)
    for (const c of held) c.socket.close()
  })

  test.each(LISTENERS)('%s takes at most its configured sessions from one address', async (_, name) => {
    const [first, second] = [await client(ports[name], '127.0.0.5'), await client(ports[name], '127.0.0.5')]
    const third = await client(ports[name], '127.0.0.5')
    expect(third.greeting).toMatch(/^421 4\.7\.0 Too many connections from your address/)
    expect((await client(ports[name], '127.0.0.6')).greeting).toMatch(/^220 /)
    first.socket.close()
    second.socket.close()
  })

  test("the relay counts an address's connections on 587 and 465 together", async () => {
    const plain = await client(ports.relay, '127.0.0.33')
    const secure = await RawSocket.openTls(ports.relayTls, '127.0.0.1', '127.0.0.33')
    opened.push(secure)
    expect([plain.greeting, await secure.reply()]).toEqual([expect.stringMatching(/^220 /), expect.stringMatching(/^220 /)])
    expect((await client(ports.relay, '127.0.0.33')).greeting).toMatch(/^421 4\.7\.0 Too many connections from your address/)
    const third = await RawSocket.openTls(ports.relayTls, '127.0.0.1', '127.0.0.33')
    opened.push(third)
    expect(await third.reply()).toMatch(/^421 4\.7\.0 Too many connections from your address/)
    plain.socket.close()
    secure.close()
  })

  test.each(LISTENERS)('%s drops a client that trickles a command one byte at a time, with 421, within the command deadline', async (_, name) => {
    const { socket } = await client(ports[name], '127.0.0.7')
    socket.write('EHLO client.example\r\n')
    await socket.reply()
    const result = await trickle(socket, 'MAIL FROM:<someone@example.org>')
    expect(result.read).toMatch(/421 4\.4\.2 .*the command took too long/)
    expect(result.closed).toBe(true)
    expect(result.seconds).toBeGreaterThan(1.5)
    expect(result.seconds).toBeLessThan(10)
  })

  test('the MX listener drops a client that trickles its message, with 421, within the DATA deadline', async () => {
    const { socket } = await client(ports.mx, '127.0.0.9')
    socket.write('EHLO client.example\r\nMAIL FROM:<>\r\nRCPT TO:<fbl@mx.mailstead.test>\r\nDATA\r\n')
    expect(await socket.until(/^354 /m)).toMatch(/250[\s\S]*250[\s\S]*354/)
    const result = await trickle(socket, 'Subject: slow\r\n\r\nthis message never ends\r\n')
    expect(result.read).toMatch(/421 4\.4\.2 .*the message took too long/)
    expect(result.closed).toBe(true)
    expect(result.seconds).toBeLessThan(10)
  })

  test('a big message on a fair line earns time past the DATA deadline: a second for each 64 KiB', async () => {
    const { socket } = await client(ports.mx, '127.0.0.12')
    socket.write('EHLO client.example\r\nMAIL FROM:<>\r\nRCPT TO:<fbl@mx.mailstead.test>\r\nDATA\r\n')
    await socket.until(/^354 /m)
    socket.write('Subject: big\r\n\r\n')
    const line = `${'x'.repeat(78)}\r\n`
    const started = performance.now()
    for (let i = 0; i < 12; i++) {
      socket.write(line.repeat(820))
      await Bun.sleep(300) // the client's pace: 64 KiB each 300 ms, 3.6 s in all, past the 2 s DATA deadline
    }
    socket.write('.\r\n')
    expect(await socket.reply(10_000)).toMatch(/^250 /)
    expect(performance.now() - started).toBeGreaterThan(2000)
  })

  test('the relay drops a client that stalls in its TLS handshake after STARTTLS', async () => {
    const { socket } = await client(ports.relay, '127.0.0.10')
    socket.write('EHLO client.example\r\n')
    await socket.reply()
    socket.write('STARTTLS\r\n')
    expect(await socket.reply()).toMatch(/^220 /)
    const result = await trickle(socket, '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03')
    expect(result.closed).toBe(true)
    expect(result.seconds).toBeLessThan(10)
  })

  test('the TLS relay (465) drops a connection that never finishes its handshake', async () => {
    const started = performance.now()
    const raw = connect({ port: ports.relayTls, host: '127.0.0.1', localAddress: '127.0.0.11' })
    raw.on('error', () => {})
    const closed = new Promise<void>((resolve) => raw.once('close', () => resolve()))
    // The start of a TLS record of 512 bytes, then its bytes one at a time.
    raw.once('connect', () => raw.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00])))
    const drip = setInterval(() => raw.writable && raw.write(Buffer.from([0x01])), 250)
    await closed
    clearInterval(drip)
    expect((performance.now() - started) / 1000).toBeLessThan(10)
  })

  test('the TLS relay (465) holds its sessions to the same command deadline', async () => {
    const socket = await RawSocket.openTls(ports.relayTls)
    opened.push(socket)
    expect(await socket.reply()).toMatch(/^220 /)
    socket.write('EHLO client.example\r\n')
    expect(await socket.reply()).toContain('AUTH PLAIN LOGIN')
    const result = await trickle(socket, 'MAIL FROM:<someone@example.org>')
    expect(result.read).toMatch(/421 4\.4\.2 /)
  })
})

const FROM = 'ada@sender.example.com'
const MESSAGE = `From: ${FROM}\r\nTo: bob@example.net\r\nSubject: hello\r\n\r\nHello.\r\n`
const IDLE = ['NOOP', 'RSET', 'HELP', 'VRFY someone', 'EHLO client.example']

/** Sends `count` of the commands that start no message, one after another; answers the replies. */
async function idle(socket: RawSocket, count: number) {
  const replies: string[] = []
  for (let i = 0; i < count && !socket.closed; i++) {
    socket.write(`${IDLE[i % IDLE.length]}\r\n`)
    replies.push((await socket.reply()).split('\r\n').filter(Boolean).at(-1)!)
  }
  return replies
}

describe('a session cannot keep its slot with commands that send nothing', () => {
  const cut = /^421 4\.7\.0 .*Too many commands without a message/

  test.each([
    ['the MX listener', 0, () => client(ports.mx, '127.0.0.20').then((c) => c.socket)],
    ['the relay (587), before AUTH', 0, () => client(ports.relay, '127.0.0.21').then((c) => c.socket)],
    ['the relay (587), logged in (EHLO, STARTTLS, EHLO, AUTH)', 4, () => relaySession(ports.relay, w.key, 'starttls', '127.0.0.22')],
    ['the TLS relay (465), logged in (EHLO, AUTH)', 2, () => relaySession(ports.relayTls, w.key, 'implicit', '127.0.0.23')],
  ])('%s answers 421 to the command past the cap (NOOP, RSET, HELP, VRFY, EHLO) and closes', async (_, before, open) => {
    const socket = await open()
    opened.push(socket)
    const replies = await idle(socket, MAX_COMMANDS + 5)
    expect(replies.slice(0, MAX_COMMANDS - before).every((reply) => /^2\d\d /.test(reply))).toBe(true)
    expect(replies[MAX_COMMANDS - before]).toMatch(cut)
    await socket.closedByPeer()
    expect(socket.closed).toBe(true)
  })

  test('refused commands count: RCPT before MAIL, MAIL before AUTH, unknown verbs', async () => {
    const { socket } = await client(ports.relay, '127.0.0.24')
    const replies: string[] = []
    for (const line of ['RCPT TO:<bob@example.net>', `MAIL FROM:<${FROM}>`, 'XYZZY'].flatMap((l) => [l, l, l])) {
      if (socket.closed) break
      socket.write(`${line}\r\n`)
      replies.push(await socket.reply())
    }
    expect(replies.slice(0, MAX_COMMANDS).every((reply) => /^5\d\d /.test(reply))).toBe(true)
    expect(replies[MAX_COMMANDS]).toMatch(cut)
  })

  test('each message starts the count again, and the recipients of a transaction are not counted', async () => {
    const socket = await relaySession(ports.relay, w.key, 'starttls', '127.0.0.25')
    opened.push(socket)
    const recipients = Array.from({ length: MAX_COMMANDS + 2 }, (_, i) => `user${i}@example.net`)
    // EHLO, STARTTLS, EHLO and AUTH, two more, then MAIL and DATA: the cap, reached.
    expect(await idle(socket, MAX_COMMANDS - 6)).not.toContainEqual(expect.stringMatching(/^421/))
    expect(await sendMessage(socket, FROM, recipients, MESSAGE)).toMatch(/^250 .*Queued as/)
    for (let round = 0; round < 2; round++) {
      expect(await idle(socket, MAX_COMMANDS - 2)).not.toContainEqual(expect.stringMatching(/^421/))
      expect(await sendMessage(socket, FROM, recipients, MESSAGE)).toMatch(/^250 .*Queued as/)
    }
    socket.close()
  })

  test('on the MX listener too: a message to the feedback address starts the count again', async () => {
    const { socket } = await client(ports.mx, '127.0.0.26')
    for (let round = 0; round < 3; round++) {
      expect(await idle(socket, MAX_COMMANDS - 2)).not.toContainEqual(expect.stringMatching(/^421/))
      expect(await sendMessage(socket, '', [`fbl@${HOSTNAME}`], 'Subject: complaint\r\n\r\nnot a report\r\n')).toMatch(/^250 /)
    }
    socket.close()
  })
})

describe('a session without a login has a deadline, however quick its commands', () => {
  const late = /^421 4\.4\.2 .*Timeout: no login or message within 6 s/m

  /** Sends a NOOP every 2 s until the server answers 421; answers all it read, how long that took, and whether it closed. */
  async function keepAlive(socket: RawSocket) {
    const started = performance.now()
    let read = ''
    for (let i = 0; i < 10 && !read && !socket.closed; i++) {
      socket.write('NOOP\r\n')
      read = await socket.until(/^421 /m, 2000).catch(() => '')
    }
    await socket.closedByPeer(1000).catch(() => '')
    return { read, seconds: (performance.now() - started) / 1000, closed: socket.closed }
  }

  test.each([
    ['the MX listener', async () => (await client(ports.mx, '127.0.0.27')).socket],
    ['the relay (587) before STARTTLS', async () => (await client(ports.relay, '127.0.0.28')).socket],
    ['the relay (587) after STARTTLS, without AUTH', () => relaySession(ports.relay, undefined, 'starttls', '127.0.0.29')],
    ['the TLS relay (465) without AUTH', () => relaySession(ports.relayTls, undefined, 'implicit', '127.0.0.30')],
  ])('%s closes it with 421 once the time is up', async (_, open) => {
    const socket = await open()
    opened.push(socket)
    const result = await keepAlive(socket)
    expect(result.read).toMatch(late)
    expect(result.closed).toBe(true)
    expect(result.seconds).toBeLessThan(10)
  }, 15_000)

  test('a client that logs in is not cut by it: a pooled client sending a message now and then, idle between, keeps its session', async () => {
    const socket = await relaySession(ports.relay, w.key, 'starttls', '127.0.0.31')
    opened.push(socket)
    const started = performance.now()
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(2500) // idle between messages, as a pooled client is: 10 s in all, past the 6 s deadline
      expect(await sendMessage(socket, FROM, ['bob@example.net'], MESSAGE)).toMatch(/^250 .*Queued as/)
    }
    expect(performance.now() - started).toBeGreaterThan(9000)
    socket.write('NOOP\r\n')
    expect(await socket.reply()).toMatch(/^250 /)
    socket.close()
  }, 20_000)

  test('on the MX listener, each message taken starts the time again', async () => {
    const { socket } = await client(ports.mx, '127.0.0.32')
    socket.write('EHLO client.example\r\n')
    await socket.reply()
    for (let i = 0; i < 3; i++) {
      await Bun.sleep(3500) // idle between messages: each gap within the 6 s deadline, their sum past it
      expect(await sendMessage(socket, '', [`fbl@${HOSTNAME}`], 'Subject: complaint\r\n\r\nnot a report\r\n')).toMatch(/^250 /)
    }
    socket.close()
  }, 20_000)
})
