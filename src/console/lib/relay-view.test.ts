import { describe, expect, test } from 'bun:test'
import type { RelaySettings } from '../api/server.api.ts'
import { loopbackOnly, nodemailerSnippet, preferredPort } from './relay-view.ts'

const settings = (changes: Partial<RelaySettings> = {}): RelaySettings => ({
  host: 'mail.example.com',
  listenAddress: '0.0.0.0',
  ports: [
    { port: 465, security: 'TLS', state: 'up' },
    { port: 587, security: 'STARTTLS', state: 'up' },
  ],
  authMethods: ['PLAIN', 'LOGIN'],
  authBeforeTls: false,
  certificate: 'configured',
  maxMessageBytes: 26_214_400,
  maxRecipients: 50,
  ...changes,
})

describe('the nodemailer snippet', () => {
  test('uses STARTTLS on its port when there is one, with the host and a secret key from the environment', () => {
    const snippet = nodemailerSnippet(settings())
    expect(snippet).toContain("host: 'mail.example.com',")
    expect(snippet).toContain('port: 587,')
    expect(snippet).toContain('requireTLS: true')
    expect(snippet).not.toContain('secure: true')
    expect(snippet).toContain("auth: { user: 'mailstead', pass: process.env.MAILSTEAD_KEY }")
    expect(snippet).not.toContain('self-signed')
  })

  test('uses TLS from the first byte when that is the only port', () => {
    const snippet = nodemailerSnippet(settings({ ports: [{ port: 465, security: 'TLS', state: 'up' }] }))
    expect(snippet).toContain('port: 465,')
    expect(snippet).toContain('secure: true')
  })

  test('says how to trust a self-signed certificate, without turning checks off', () => {
    const snippet = nodemailerSnippet(settings({ certificate: 'self-signed' }))
    expect(snippet).toContain('self-signed certificate')
    expect(snippet).not.toContain('rejectUnauthorized')
  })
})

test('preferredPort and loopbackOnly', () => {
  expect(preferredPort(settings())?.port).toBe(587)
  expect(preferredPort(settings({ ports: [] }))).toBeUndefined()
  expect(['127.0.0.1', '::1', 'localhost'].map(loopbackOnly)).toEqual([true, true, true])
  expect(['0.0.0.0', '::', '192.0.2.10'].map(loopbackOnly)).toEqual([false, false, false])
})
