// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'
import { publishRecords } from '../helpers/domains.ts'
import { FakeDns, FAKE_DNS_TIMEOUT_MS } from '../helpers/fake-dns.ts'
import { until } from '../helpers/until.ts'

const HOST = 'mx.mailstead.test'
const HOUR = 3_600_000
let dns: FakeDns
let t: TestApp
let key: string
const clock = new ManualClock()

beforeAll(async () => {
  dns = await new FakeDns().start()
  t = await createTestApp({ 'dns-servers': dns.address, 'dns-timeout-ms': String(FAKE_DNS_TIMEOUT_MS), hostname: HOST }, { clock })
  key = (await t.project()).secretKey
})

afterAll(async () => {
  await t.close()
  await dns.stop()
})

const add = async (name: string) => (await t.request('POST', '/api/v1/domains', { key, body: { name, region: 'us-east-1' } })).body
const get = async (id: number) => (await t.request('GET', `/api/v1/domains/${id}`, { key })).body
const check = async (id: number) => {
  await t.app.checker.check(id)
  return get(id)
}

describe('the DNS checker', () => {
  test('right records, the DKIM key split into 255-byte strings, make the domain SUCCESS', async () => {
    const domain = await add('right.example.com')
    publishRecords(dns, domain.dnsRecords)
    expect(domain.dnsRecords[0].value.length).toBeGreaterThan(255)
    const checked = await check(domain.id)
    expect(checked).toMatchObject({
      status: 'SUCCESS',
      dkimStatus: 'SUCCESS',
      spfDetails: `v=spf1 a:${HOST} ~all`,
      dmarcAdded: true,
      isVerifying: false,
      verificationError: null,
      errorMessage: null,
      lastCheckedTime: new Date(clock.now()).toISOString(),
    })
    expect(checked.dnsRecords.map((r: any) => r.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS'])
  })

  test('missing records keep a new domain PENDING and say what is expected; after 72 h it is FAILED', async () => {
    const domain = await add('missing.example.com')
    publishRecords(dns, domain.dnsRecords, { except: [domain.dnsRecords[0].name] })
    const pending = await check(domain.id)
    expect(pending).toMatchObject({ status: 'PENDING', dkimStatus: 'PENDING', dmarcAdded: true })
    expect(pending.verificationError).toContain(`DKIM TXT ${domain.dnsRecords[0].name}: expected "v=DKIM1; k=rsa; p=`)
    expect(pending.verificationError).toContain('found nothing')
    clock.advance(72 * HOUR)
    const failed = await check(domain.id)
    expect(failed).toMatchObject({ status: 'FAILED', dkimStatus: 'FAILED' })
    expect(failed.errorMessage).toContain('72 h')
  })

  test('a wrong record says what was found', async () => {
    const domain = await add('wrong.example.com')
    publishRecords(dns, domain.dnsRecords)
    dns.records('mst.wrong.example.com', { type: 'MX', exchange: 'mx.elsewhere.example', priority: 10 }, { type: 'TXT', data: 'v=spf1 include:elsewhere.example -all' })
    const checked = await check(domain.id)
    expect(checked.status).toBe('PENDING')
    expect(checked.spfDetails).toBe('v=spf1 include:elsewhere.example -all')
    expect(checked.verificationError).toContain('found "mx.elsewhere.example"')
    expect(checked.verificationError).toContain(`does not authorise ${HOST}`)
    // Each record says, beside what is expected, what was found and why it is judged so.
    const mx = checked.dnsRecords.find((r: any) => r.type === 'MX')
    expect(mx).toMatchObject({ value: HOST, status: 'PENDING', found: 'mx.elsewhere.example', problem: `the MX does not point to ${HOST}` })
    const dkim = checked.dnsRecords.find((r: any) => r.name.includes('._domainkey.') && !r.name.includes('-ed.'))
    expect(dkim).toMatchObject({ status: 'SUCCESS', found: dkim.value, problem: null })
  })

  test('SERVFAIL makes it TEMPORARY_FAILURE, and a later good check moves it on', async () => {
    const domain = await add('servfail.example.com')
    publishRecords(dns, domain.dnsRecords)
    dns.set(domain.dnsRecords[0].name, { servfail: true })
    const failing = await check(domain.id)
    expect(failing.status).toBe('TEMPORARY_FAILURE')
    expect(failing.errorMessage).toContain('SERVFAIL')
    publishRecords(dns, domain.dnsRecords)
    expect((await check(domain.id)).status).toBe('SUCCESS')
  })

  test('a name server that never answers costs its own domain a timeout, and no other domain anything', async () => {
    const silent = await add('silent.example.com')
    const fine = await add('fine.example.com')
    publishRecords(dns, silent.dnsRecords)
    publishRecords(dns, fine.dnsRecords)
    for (const record of silent.dnsRecords) dns.set(record.name, { silent: true })
    const started = performance.now()
    await t.app.checker.checkDue()
    expect(performance.now() - started).toBeLessThan(3000)
    expect((await get(silent.id)).status).toBe('TEMPORARY_FAILURE')
    expect((await get(fine.id)).status).toBe('SUCCESS')
  })

  test('isVerifying is true while a check runs', async () => {
    const slow = await add('slow.example.com')
    dns.set(slow.dnsRecords[0].name, { silent: true })
    const running = t.app.checker.check(slow.id)
    expect(await until(async () => (await get(slow.id)).isVerifying, (verifying) => verifying === true, 2000, 10)).toBe(true)
    await running
    expect((await get(slow.id)).isVerifying).toBe(false)
  })

  test('a verified domain whose records break goes to TEMPORARY_FAILURE, then FAILED after the grace', async () => {
    const domain = await add('breaks.example.com')
    publishRecords(dns, domain.dnsRecords)
    expect((await check(domain.id)).status).toBe('SUCCESS')
    dns.zone.delete(domain.dnsRecords[0].name)
    clock.advance(HOUR)
    expect((await check(domain.id)).status).toBe('TEMPORARY_FAILURE')
    clock.advance(71 * HOUR)
    expect((await check(domain.id)).status).toBe('TEMPORARY_FAILURE')
    clock.advance(HOUR)
    expect((await check(domain.id)).status).toBe('FAILED')
    publishRecords(dns, domain.dnsRecords)
    expect((await check(domain.id)).status).toBe('SUCCESS')
  })

  test('new domains are due at once; pending ones every 5 minutes; verified ones every hour', async () => {
    const domain = await add('schedule.example.com')
    const askedAbout = () => dns.queries.filter((q) => q.name.endsWith('schedule.example.com')).length
    await t.app.checker.checkDue()
    expect((await get(domain.id)).status).toBe('PENDING')
    let asked = askedAbout()
    clock.advance(4 * 60_000)
    await t.app.checker.checkDue()
    expect(askedAbout()).toBe(asked)
    clock.advance(60_000)
    publishRecords(dns, domain.dnsRecords)
    await t.app.checker.checkDue()
    expect((await get(domain.id)).status).toBe('SUCCESS')
    asked = askedAbout()
    clock.advance(59 * 60_000)
    await t.app.checker.checkDue()
    expect(askedAbout()).toBe(asked)
    clock.advance(60_000)
    await t.app.checker.checkDue()
    expect(askedAbout()).toBeGreaterThan(asked)
  })
})
