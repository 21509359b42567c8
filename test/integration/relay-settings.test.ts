// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterEach, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

test('GET /api/v1/server/relay says how to reach the relay, to any key, and nothing without one', async () => {
  t = await createTestApp({ hostname: 'mail.example.test', 'relay-port': '2587', 'relay-tls-port': '2465', 'smtp-max-message-mb': '10', 'relay-max-recipients': '50' })
  const { secretKey } = await t.project()
  expect((await t.request('GET', '/api/v1/server/relay')).status).toBe(401)
  const { status, body } = await t.request('GET', '/api/v1/server/relay', { key: secretKey })
  expect(status).toBe(200)
  expect(body).toEqual({
    host: 'mail.example.test',
    listenAddress: '127.0.0.1',
    // Not started: this process listens on neither.
    ports: [
      { port: 2587, security: 'STARTTLS', state: 'off' },
      { port: 2465, security: 'TLS', state: 'off' },
    ],
    authMethods: ['PLAIN', 'LOGIN'],
    authBeforeTls: false,
    certificate: 'self-signed',
    maxMessageBytes: 10 * 1024 * 1024,
    maxRecipients: 50,
  })
})

test('a relay port that is listening is given as bound, and ports that are off are left out', async () => {
  t = await createTestApp({ 'relay-port': '0', 'relay-tls-port': 'off', 'relay-allow-insecure-auth': 'true' })
  const { secretKey } = await t.project()
  await t.app.start()
  const { body } = await t.request('GET', '/api/v1/server/relay', { key: secretKey })
  expect(body.ports).toEqual([{ port: t.app.listeners()!.relay.port, security: 'STARTTLS', state: 'up' }])
  expect(body.ports[0].port).toBeGreaterThan(0)
  expect(body.authBeforeTls).toBe(true)
})
