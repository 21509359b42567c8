// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { makeCertificate } from '../helpers/certificates.ts'
import { cli } from '../helpers/cli.ts'
import { RawSocket } from '../helpers/raw-socket.ts'
import { queuedId, relaySession, sendMessage } from '../helpers/relay-client.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

let w: World
let port: number
let tlsPort: number
const opened: RawSocket[] = []

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-relay-auth-'))
  const { cert, key } = await makeCertificate([HOSTNAME])
  writeFileSync(join(dir, 'cert.pem'), cert)
  writeFileSync(join(dir, 'key.pem'), key)
  w = await createWorld({
    started: true,
    settings: { 'relay-port': '0', 'relay-tls-port': '0', 'tls-cert': join(dir, 'cert.pem'), 'tls-key': join(dir, 'key.pem') },
  })
  port = w.t.app.listeners()!.relay.port!
  tlsPort = w.t.app.listeners()!.relayTls.port!
})

afterAll(async () => {
  for (const socket of opened) socket.close()
  await w.close()
})

const FROM = 'ada@sender.example.com'
const MESSAGE = `From: ${FROM}\r\nTo: bob@example.net\r\nSubject: hello\r\n\r\nHello.\r\n`
const base64 = (text: string) => Buffer.from(text).toString('base64')
const flags = (yes = true) => ['--data-dir', w.t.dataDir, ...w.t.databaseFlags, '--json', ...(yes ? ['--yes'] : [])]

/** A new secret key of the world's project, made by the CLI (another connection to the database). */
async function newKey(): Promise<{ id: number; key: string }> {
  return JSON.parse((await cli(['key', 'create', '--project', String(w.projectId), '--type', 'secret', ...flags(false)])).out)
}

async function open(tls: 'starttls' | 'implicit' | 'none', key?: string) {
  const socket = await relaySession(tls === 'implicit' ? tlsPort : port, key, tls)
  opened.push(socket)
  return socket
}

async function ehlo(socket: RawSocket) {
  socket.write('EHLO client.example\r\n')
  return socket.reply()
}

describe('no secret crosses in clear', () => {
  test('before STARTTLS, AUTH is not offered, and neither PLAIN nor LOGIN is taken: no prompt asks for the key', async () => {
    const socket = await open('none')
    const features = await ehlo(socket)
    expect(features).toContain('STARTTLS')
    expect(features).not.toMatch(/AUTH/)
    socket.write('AUTH LOGIN\r\n')
    const login = await socket.reply()
    expect(login).toMatch(/^5\d\d /)
    expect(login).not.toMatch(/^334/m)
    socket.write(`AUTH PLAIN ${base64(`\0mailstead\0${w.key}`)}\r\n`)
    expect(await socket.reply()).toMatch(/^5\d\d /)
    socket.write(`MAIL FROM:<${FROM}>\r\n`)
    expect(await socket.reply()).toMatch(/^530 5\.7\.0 /)
  })

  test('after STARTTLS, AUTH PLAIN and LOGIN are offered', async () => {
    const socket = await open('starttls')
    expect(await ehlo(socket)).toMatch(/AUTH PLAIN LOGIN/)
  })

  test('nodemailer told to skip TLS cannot log in, and a client that upgrades can', async () => {
    const login = (options: Record<string, unknown>) =>
      new Promise<unknown>((resolve) => {
        const connection = new SMTPConnection({ host: '127.0.0.1', port, tls: { rejectUnauthorized: false }, ...options } as never)
        connection.on('error', resolve)
        connection.connect(() => connection.login({ user: 'mailstead', pass: w.key }, (error) => {
          connection.quit()
          resolve(error ?? 'ok')
        }))
      })
    expect(await login({ ignoreTLS: true })).toMatchObject({ message: expect.any(String) })
    expect(await login({ requireTLS: true })).toBe('ok')
  })

  test('with MAILSTEAD_RELAY_ALLOW_INSECURE_AUTH (development), AUTH is offered and taken in clear', async () => {
    const insecure = await createWorld({ started: true, settings: { 'relay-port': '0', 'relay-allow-insecure-auth': 'true' } })
    try {
      const socket = await relaySession(insecure.t.app.listeners()!.relay.port!, insecure.key, 'none')
      opened.push(socket)
      expect(queuedId(await sendMessage(socket, FROM, ['dev@example.net'], MESSAGE))).toBeDefined()
    } finally {
      await insecure.close()
    }
  })
})

describe('AUTH LOGIN as well as PLAIN, on 587 and on 465', () => {
  test.each([['587 with STARTTLS', 'starttls'], ['465 with TLS from the start', 'implicit']] as const)('on %s, AUTH LOGIN takes the key and the message goes out', async (_, tls) => {
    const socket = await open(tls)
    const features = await ehlo(socket)
    expect(features).toMatch(/AUTH PLAIN LOGIN/)
    expect(features).not.toContain('STARTTLS')
    socket.write('AUTH LOGIN\r\n')
    expect(await socket.reply()).toMatch(/^334 /)
    socket.write(`${base64('mailstead')}\r\n`)
    expect(await socket.reply()).toMatch(/^334 /)
    socket.write(`${base64(w.key)}\r\n`)
    expect(await socket.reply()).toMatch(/^235 /)
    const id = queuedId(await sendMessage(socket, FROM, [`login-${tls}@example.net`], MESSAGE))
    expect(id).toBeDefined()
    await w.deliver()
    expect(w.mx.received.some((m) => m.to.includes(`login-${tls}@example.net`))).toBe(true)
  })

  test.each([
    ['LOGIN with its user name in the command', (key: string) => [`AUTH LOGIN ${base64('mailstead')}`, base64(key)]],
    ['PLAIN with the key after a prompt', (key: string) => ['AUTH PLAIN', base64(`\0mailstead\0${key}`)]],
  ])('on 465, %s works, and a wrong key gets 535', async (_, lines) => {
    for (const [key, code] of [[w.key, /^235 /], [`sk_${'x'.repeat(43)}`, /^535 5\.7\.8 /]] as const) {
      const socket = await open('implicit')
      await ehlo(socket)
      const [first, second] = lines(key)
      socket.write(`${first}\r\n`)
      expect(await socket.reply()).toMatch(/^334/)
      socket.write(`${second}\r\n`)
      expect(await socket.reply()).toMatch(code)
    }
  })
})

describe('revocation is immediate in an SMTP session', () => {
  test('a key revoked by the CLI stops the session that logged in with it: the next MAIL gets 535', async () => {
    const { id, key } = await newKey()
    const socket = await open('starttls', key)
    expect(queuedId(await sendMessage(socket, FROM, ['before@example.net'], MESSAGE))).toBeDefined()
    expect((await cli(['key', 'revoke', String(id), ...flags()])).code).toBe(0)
    expect(await sendMessage(socket, FROM, ['after@example.net'], MESSAGE)).toMatch(/^535 5\.7\.8 .*revoked/)
    expect(await sendMessage(socket, FROM, ['again@example.net'], MESSAGE)).toMatch(/^535 /)
  })

  test('revoked between MAIL and RCPT, the RCPT gets 535', async () => {
    const { id, key } = await newKey()
    const socket = await open('starttls', key)
    socket.write(`MAIL FROM:<${FROM}>\r\n`)
    expect(await socket.reply()).toMatch(/^250 /)
    await cli(['key', 'revoke', String(id), ...flags()])
    socket.write('RCPT TO:<late@example.net>\r\n')
    expect(await socket.reply()).toMatch(/^535 5\.7\.8 /)
  })

  test('revoked while the message is on its way, its DATA gets 535 and nothing is queued', async () => {
    const { id, key } = await newKey()
    const socket = await open('implicit', key)
    socket.write(`MAIL FROM:<${FROM}>\r\nRCPT TO:<during@example.net>\r\nDATA\r\n`)
    await socket.until(/^354 /m)
    socket.write(MESSAGE)
    await cli(['key', 'revoke', String(id), ...flags()])
    socket.write('.\r\n')
    expect(await socket.reply()).toMatch(/^535 5\.7\.8 /)
    const queued = await w.t.app.db.selectFrom('deliveries').select('id').where('recipient', '=', 'during@example.net').execute()
    expect(queued).toEqual([])
  })

  test('a project disabled by the CLI stops its sessions: MAIL gets 550 5.7.1, and after enabling it sends again', async () => {
    const socket = await open('starttls', w.key)
    expect((await cli(['project', 'disable', String(w.projectId), ...flags()])).code).toBe(0)
    try {
      expect(await sendMessage(socket, FROM, ['disabled@example.net'], MESSAGE)).toMatch(/^550 5\.7\.1 .*disabled/)
    } finally {
      expect((await cli(['project', 'enable', String(w.projectId), ...flags(false)])).code).toBe(0)
    }
    expect(queuedId(await sendMessage(socket, FROM, ['enabled@example.net'], MESSAGE))).toBeDefined()
  })
})
