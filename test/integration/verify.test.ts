// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { FakeDns, FAKE_DNS_TIMEOUT_MS } from '../helpers/fake-dns.ts'

let dns: FakeDns
let t: TestApp
let key: string

beforeAll(async () => {
  dns = await new FakeDns().start()
  dns
    .records('acme.example', { type: 'NS', ns: 'ns1.acme.example' }, { type: 'MX', exchange: 'mx.acme.example', priority: 10 }, { type: 'A', address: '192.0.2.1' })
    .records('gmail.com', { type: 'NS', ns: 'ns1.google.com' }, { type: 'MX', exchange: 'gmail-smtp-in.l.google.com', priority: 5 })
    .records('mailinator.com', { type: 'NS', ns: 'ns1.mailinator.com' }, { type: 'MX', exchange: 'mail.mailinator.com', priority: 10 })
    .records('privaterelay.appleid.com', { type: 'MX', exchange: 'mx01.mail.icloud.com', priority: 10 })
    .records('a-only.example', { type: 'A', address: '192.0.2.7' })
    .records('parked.example', { type: 'NS', ns: 'ns.parked.example' })
    .records('nullmx.example', { type: 'MX', exchange: '', priority: 0 }, { type: 'A', address: '192.0.2.9' })
    .records('ipv6.example', { type: 'AAAA', address: '2001:db8::1' })
    .set('broken.example', { servfail: true })
    .set('silent.example', { silent: true })
  t = await createTestApp({ 'dns-servers': dns.address, 'dns-timeout-ms': String(FAKE_DNS_TIMEOUT_MS) })
  key = (await t.project()).secretKey
})

afterAll(async () => {
  await t.close()
  await dns.stop()
})

const verify = async (email: string) => {
  const response = await t.request('POST', '/v1/verify', { key, body: { email } })
  return response
}

describe('POST /v1/verify', () => {
  test('a deliverable company address is valid and says why', async () => {
    const { status, body } = await verify('jane.doe@acme.example')
    expect(status).toBe(200)
    expect(body.success).toBe(true)
    expect(body.data).toMatchObject({
      email: 'jane.doe@acme.example',
      valid: true,
      isDisposable: false,
      isAlias: false,
      isTypo: false,
      isPlusAddressed: false,
      isRandomInput: false,
      isPersonalEmail: false,
      domainExists: true,
      hasWebsite: true,
      hasMxRecords: true,
    })
    expect(body.data.reasons[0]).toContain('has a mail server')
  })

  test.each([
    ['jane+news@acme.example', { isPlusAddressed: true, valid: true }],
    ['someone@gmail.com', { isPersonalEmail: true, valid: true, hasWebsite: false }],
    ['someone@mailinator.com', { isDisposable: true, isPersonalEmail: false }],
    ['abc123@privaterelay.appleid.com', { isAlias: true, valid: true }],
    ['xkqzvbwtp@acme.example', { isRandomInput: true }],
    ['jane@a-only.example', { valid: true, hasMxRecords: false, hasWebsite: true }],
    ['jane@ipv6.example', { valid: true, hasMxRecords: false, hasWebsite: true }],
    ['jane@parked.example', { valid: false, domainExists: true, hasMxRecords: false, hasWebsite: false }],
    ['jane@nowhere.example', { valid: false, domainExists: false }],
    ['jane@nullmx.example', { valid: false, hasMxRecords: false }],
  ])('%s', async (email, expected) => {
    const { status, body } = await verify(email)
    expect(status).toBe(200)
    expect(body.data).toMatchObject(expected)
    expect(body.data.reasons.length).toBeGreaterThan(0)
  })

  test('a typo of a popular domain is flagged with a suggestion', async () => {
    const { body } = await verify('jane@gmial.com')
    expect(body.data.isTypo).toBe(true)
    expect(body.data.suggestedEmail).toBe('jane@gmail.com')
    expect(body.data.reasons.join(' ')).toContain('did you mean jane@gmail.com')
  })

  test('an internationalised domain is looked up in punycode', async () => {
    dns.records('xn--bcher-kva.example', { type: 'MX', exchange: 'mx.acme.example', priority: 10 })
    const { body } = await verify('jane@bücher.example')
    expect(body.data).toMatchObject({ email: 'jane@bücher.example', valid: true, hasMxRecords: true })
  })

  test('a resolver that answers SERVFAIL gives a result that says so', async () => {
    const { status, body } = await verify('jane@broken.example')
    expect(status).toBe(200)
    expect(body.data.valid).toBe(false)
    expect(body.data.reasons[0]).toContain('could not be checked')
    expect(body.data.reasons[0]).toContain('SERVFAIL')
  })

  test('a resolver that never answers gives a result that says so, in bounded time', async () => {
    const started = performance.now()
    const { status, body } = await verify('jane@silent.example')
    expect(status).toBe(200)
    expect(body.data.valid).toBe(false)
    expect(body.data.reasons[0]).toContain('did not answer in time')
    expect(performance.now() - started).toBeLessThan(5000)
  })

  test('results per domain are cached', async () => {
    dns.records('cached.example', { type: 'MX', exchange: 'mx.cached.example', priority: 10 })
    await verify('a@cached.example')
    const asked = dns.queries.filter((q) => q.name === 'cached.example').length
    await verify('b@cached.example')
    expect(dns.queries.filter((q) => q.name === 'cached.example').length).toBe(asked)
  })

  test.each(['not-an-address', 'a b@acme.example', 'jane@localhost', 'jane@192.168.1.1', `${'a'.repeat(65)}@acme.example`])(
    'a malformed address (%s) is refused with 422',
    async (email) => {
      const { status, body } = await verify(email)
      expect(status).toBe(422)
      expect(body.errors[0].field).toBe('email')
    },
  )
})
