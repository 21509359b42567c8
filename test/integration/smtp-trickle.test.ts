// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeCertificate } from '../helpers/certificates.ts'
import { RawSocket } from '../helpers/raw-socket.ts'
import { relaySession } from '../helpers/relay-client.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

/*
 * A client that trickles one byte every 5 seconds, against the listeners as they are configured
 * by default: whatever it trickles (a command, a message, commands that each arrive in time), it
 * is answered 421 and dropped within a minute. Each case runs at once beside the others.
 */

let w: World
const ports = { mx: 0, relay: 0, relayTls: 0 }
const opened: RawSocket[] = []

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-trickle-'))
  const { cert, key } = await makeCertificate([HOSTNAME])
  writeFileSync(join(dir, 'cert.pem'), cert)
  writeFileSync(join(dir, 'key.pem'), key)
  w = await createWorld({
    started: true,
    settings: { 'mx-port': '0', 'relay-port': '0', 'relay-tls-port': '0', 'tls-cert': join(dir, 'cert.pem'), 'tls-key': join(dir, 'key.pem') },
  })
  const listeners = w.t.app.listeners()!
  Object.assign(ports, { mx: listeners.mx.port, relay: listeners.relay.port, relayTls: listeners.relayTls.port })
})

afterAll(async () => {
  for (const socket of opened) socket.close()
  await w.close()
})

/** A session from `from` that has sent `lines` (each answered). */
async function session(port: number, from: string, lines: string[], reply = /^[2-5]\d\d [^\r\n]*\r\n/m) {
  const socket = await RawSocket.open(port, '127.0.0.1', from)
  opened.push(socket)
  await socket.reply()
  for (const line of lines) {
    socket.write(`${line}\r\n`)
    await socket.until(reply)
  }
  return socket
}

/** Writes `text` one byte every 5 s until the server answers 421; answers what it said, after how long, and whether it closed. */
async function trickle(socket: RawSocket, text: string) {
  const started = performance.now()
  let read = ''
  for (let i = 0; i < 20 && !read && !socket.closed; i++) {
    socket.write(text[i % text.length]!)
    read = await socket.until(/^421 /m, 5000).catch(() => '')
  }
  const seconds = (performance.now() - started) / 1000
  await socket.closedByPeer(2000).catch(() => '')
  return { read, seconds, closed: socket.closed }
}

const ENVELOPE = ['EHLO client.example', 'MAIL FROM:<>', `RCPT TO:<fbl@${HOSTNAME}>`]

describe('a client trickling one byte every 5 seconds, with the default settings', () => {
  test('is answered 421 and dropped within a minute, whatever it trickles and on every listener', async () => {
    const cases: Array<[string, () => Promise<RawSocket>, string]> = [
      ['the MX listener, a message', async () => session(ports.mx, '127.0.0.60', [...ENVELOPE, 'DATA']), 'Subject: slow\r\n\r\nthis message never ends\r\n'],
      ['the MX listener, a command', async () => session(ports.mx, '127.0.0.61', []), 'EHLO a-client-that-never-finishes.example'],
      ['the MX listener, NOOPs, each whole in time', async () => session(ports.mx, '127.0.0.62', ['EHLO client.example']), 'NOOP\r\n'],
      ['the relay (587), a command before AUTH', async () => session(ports.relay, '127.0.0.63', []), 'EHLO a-client-that-never-finishes.example'],
      ['the relay (587), NOOPs after STARTTLS, never AUTH', () => relaySession(ports.relay, undefined, 'starttls', '127.0.0.64'), 'NOOP\r\n'],
      ['the TLS relay (465), NOOPs, never AUTH', () => relaySession(ports.relayTls, undefined, 'implicit', '127.0.0.65'), 'NOOP\r\n'],
      [
        'the relay (587), logged in, a message',
        async () => {
          const socket = await relaySession(ports.relay, w.key, 'starttls', '127.0.0.66')
          socket.write('MAIL FROM:<ada@sender.example.com>\r\nRCPT TO:<bob@example.net>\r\nDATA\r\n')
          await socket.until(/^354 /m)
          return socket
        },
        'From: ada@sender.example.com\r\nSubject: slow\r\n\r\nthis message never ends\r\n',
      ],
    ]
    const results = await Promise.all(
      cases.map(async ([name, open, text]) => {
        const socket = await open()
        opened.push(socket)
        return { name, ...(await trickle(socket, text)) }
      }),
    )
    for (const result of results) {
      expect({ name: result.name, said: /^421 4\.4\.2 /m.test(result.read), closed: result.closed, withinAMinute: result.seconds < 60 }).toEqual({
        name: result.name,
        said: true,
        closed: true,
        withinAMinute: true,
      })
    }
  }, 90_000)
})
