// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { makeCertificate } from '../helpers/certificates.ts'
import { HttpSocket } from '../helpers/http-socket.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

let w: World
let port: number
let tlsPort: number

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mailstead-throttle-'))
  const { cert, key } = await makeCertificate([HOSTNAME])
  writeFileSync(join(dir, 'cert.pem'), cert)
  writeFileSync(join(dir, 'key.pem'), key)
  w = await createWorld({ started: true, settings: { 'smtp-max-connections-per-ip': '200', 'relay-port': '0', 'relay-tls-port': '0', 'tls-cert': join(dir, 'cert.pem'), 'tls-key': join(dir, 'key.pem') } })
  port = w.t.app.listeners()!.relay.port!
  tlsPort = w.t.app.listeners()!.relayTls.port!
})

afterAll(() => w.close())

/** A session from `localAddress`, upgraded with STARTTLS (or to 465, TLS first), not logged in yet. */
async function open(localAddress = '127.0.0.1', secure = false): Promise<SMTPConnection> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port: secure ? tlsPort : port, secure, localAddress, tls: { rejectUnauthorized: false } } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  return connection
}

/** Logs in on `connection` with `pass`, then quits: 'ok' or the refusal. */
async function loginOn(connection: SMTPConnection, pass: string): Promise<string> {
  try {
    return await new Promise<string>((resolve) => connection.login({ user: 'app', pass }, (error) => resolve(error ? String((error as any).response) : 'ok')))
  } finally {
    connection.quit()
  }
}

/** Connects from `localAddress` and logs in with `pass`: 'ok' or the refusal. */
const login = async (pass: string, localAddress = '127.0.0.1', secure = false) => loginOn(await open(localAddress, secure), pass)

describe('failed relay logins from an address', () => {
  test('slow the right key from that address, and never lock it out', async () => {
    // Twelve different guesses: the same key sent twice at once is one guess, checked once.
    const wrong = await Promise.all(Array.from({ length: 12 }, (_, i) => login('sk_' + String(i).padStart(2, 'x').repeat(22).slice(0, 43))))
    // Refused, or, past the eight that may wait at once after the first failures, turned away unchecked.
    expect(wrong.every((answer) => answer.startsWith('535 5.7.8') || answer.startsWith('454 4.7.0'))).toBe(true)
    expect(wrong.filter((answer) => answer.startsWith('535')).length).toBeGreaterThanOrEqual(11)

    const began = Date.now()
    expect(await login(w.key)).toBe('ok')
    // Eleven failures or more make the next login from the address wait the longest: 8 s.
    expect(Date.now() - began).toBeGreaterThanOrEqual(7500)

    const elsewhere = Date.now()
    expect(await login(w.key, '127.0.0.5')).toBe('ok')
    expect(Date.now() - elsewhere).toBeLessThan(7500)
  }, 30_000)

  test('64 different keys sent at once from a new address: each counts from its start, so at most 3 + 8 keys are checked (535) and the rest turned away unchecked (454)', async () => {
    // Each session is opened (TLS and all) first, so that the 64 logins do come at once: on a
    // loaded machine, handshakes spread out over seconds would let a late one take the place of a
    // waiting login that has been checked.
    const sessions = await Promise.all(Array.from({ length: 64 }, () => open('127.0.0.70')))
    const wrong = await Promise.all(sessions.map((session, i) => loginOn(session, 'sk_' + String(i).padStart(2, 'b').repeat(22).slice(0, 43))))
    expect(wrong.filter((answer) => answer.startsWith('535 5.7.8')).length).toBeLessThanOrEqual(11)
    expect(wrong.filter((answer) => answer.startsWith('454 4.7.0')).length).toBeGreaterThanOrEqual(64 - 11)
  }, 30_000)

  test('on 587 slow a login on 465 from the same address, and the other way round: one record for both ports', async () => {
    const wrong = 'sk_' + 'y'.repeat(43)
    for (let i = 0; i < 4; i++) expect(await login(wrong, '127.0.0.20')).toStartWith('535 5.7.8')
    let began = Date.now()
    expect(await login(w.key, '127.0.0.20', true)).toBe('ok')
    // Four failures: the next login waits 1 s.
    expect(Date.now() - began).toBeGreaterThanOrEqual(900)

    for (let i = 0; i < 4; i++) expect(await login(wrong, '127.0.0.21', true)).toStartWith('535 5.7.8')
    began = Date.now()
    expect(await login(w.key, '127.0.0.21')).toBe('ok')
    expect(Date.now() - began).toBeGreaterThanOrEqual(900)
  }, 30_000)
})

describe('one throttle for SMTP and HTTP', () => {
  const timedHttp = async (key: string, localAddress: string) => {
    const socket = await HttpSocket.open(Number(new URL(w.t.app.url).port), localAddress)
    const began = Date.now()
    const response = await socket.request('GET', '/contacts', { key })
    socket.close()
    return { status: response.status, ms: Date.now() - began }
  }

  test('failed relay logins slow HTTP requests from that address, and failed HTTP keys slow its relay logins', async () => {
    for (let i = 0; i < 3; i++) expect(await login('sk_' + 'y'.repeat(43), '127.0.0.7')).toStartWith('535')
    const http = await timedHttp(w.key, '127.0.0.7')
    expect(http.status).toBe(200)
    expect(http.ms).toBeGreaterThanOrEqual(450)

    for (let i = 0; i < 3; i++) expect((await timedHttp('sk_' + 'y'.repeat(43), '127.0.0.8')).status).toBe(401)
    const began = Date.now()
    expect(await login(w.key, '127.0.0.8')).toBe('ok')
    expect(Date.now() - began).toBeGreaterThanOrEqual(450)
  }, 30_000)

  test('a password that is not of a key\'s shape is refused without counting: it is no guess at a key', async () => {
    for (let i = 0; i < 6; i++) expect(await login('hunter2', '127.0.0.9')).toStartWith('535 5.7.8')
    const began = Date.now()
    expect(await login(w.key, '127.0.0.9')).toBe('ok')
    expect(Date.now() - began).toBeLessThan(2000)
  }, 30_000)
})
