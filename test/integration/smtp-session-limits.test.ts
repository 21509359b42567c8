import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { makeCertificate } from '../helpers/certificates.ts'
import { RawSocket } from '../helpers/raw-socket.ts'

let t: TestApp
const ports = { mx: 0, relay: 0, relayTls: 0 }
const opened: RawSocket[] = []

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-limits-'))
  const { cert, key } = await makeCertificate(['mx.mailstead.test'])
  writeFileSync(join(dir, 'cert.pem'), cert)
  writeFileSync(join(dir, 'key.pem'), key)
  t = await createTestApp({
    'mx-port': '0',
    'relay-port': '0',
    'relay-tls-port': '0',
    'tls-cert': join(dir, 'cert.pem'),
    'tls-key': join(dir, 'key.pem'),
    hostname: 'mx.mailstead.test',
    'smtp-max-connections': '4',
    'smtp-max-connections-per-ip': '2',
    'smtp-command-timeout-seconds': '2',
    'smtp-data-timeout-seconds': '2',
  })
  await t.app.start()
  const listeners = t.app.listeners()!
  Object.assign(ports, { mx: listeners.mx.port, relay: listeners.relay.port, relayTls: listeners.relayTls.port })
})

afterAll(async () => {
  for (const socket of opened) socket.close()
  await t.close()
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
    for (let i = 0; i < 50; i++) {
      const next = await client(ports[name], '127.0.0.4')
      if (next.greeting.startsWith('220')) break
      await Bun.sleep(50)
    }
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

  test('a client whose every command is quick is not dropped, however long its session', async () => {
    const { socket } = await client(ports.relay, '127.0.0.8')
    for (let i = 0; i < 6; i++) {
      socket.write('NOOP\r\n')
      expect(await socket.reply()).toMatch(/^250 /)
      await Bun.sleep(700)
    }
    socket.close()
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
      await Bun.sleep(300)
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
