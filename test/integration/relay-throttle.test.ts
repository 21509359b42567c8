import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let port: number

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'relay-port': '0' } })
  port = w.t.app.listeners()!.relay.port!
})

afterAll(() => w.close())

/** Connects from `localAddress`, upgrades with STARTTLS, logs in with `pass`: 'ok' or the refusal. */
async function login(pass: string, localAddress = '127.0.0.1'): Promise<string> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port, localAddress, tls: { rejectUnauthorized: false } } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  try {
    return await new Promise<string>((resolve) => connection.login({ user: 'app', pass }, (error) => resolve(error ? String((error as any).response) : 'ok')))
  } finally {
    connection.quit()
  }
}

describe('failed relay logins from an address', () => {
  test('slow the right key from that address, and never lock it out', async () => {
    const wrong = await Promise.all(Array.from({ length: 12 }, () => login('sk_' + 'x'.repeat(43))))
    expect(wrong.every((answer) => answer.startsWith('535 5.7.8'))).toBe(true)

    const began = Date.now()
    expect(await login(w.key)).toBe('ok')
    // Twelve failures make the next login from the address wait the longest: 8 s.
    expect(Date.now() - began).toBeGreaterThanOrEqual(7500)

    const elsewhere = Date.now()
    expect(await login(w.key, '127.0.0.5')).toBe('ok')
    expect(Date.now() - elsewhere).toBeLessThan(7500)
  }, 30_000)
})
