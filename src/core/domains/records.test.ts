import { describe, expect, test } from 'bun:test'
import type { DnsAnswer, DnsRecord } from '../../lib/dns.ts'
import { expectedRecords, judge, type ExpectedRecord } from './records.ts'

const HOST = 'mx.mailstead.example'
const domain = {
  name: 'example.com',
  return_path_label: 'mst',
  dkim_selector: 'ms202611a',
  dkim_public_key: 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA' + 'x'.repeat(300),
  ed25519_selector: 'ms202611a-ed',
  ed25519_public_key: '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
}
const records = expectedRecords(domain, HOST)
const record = (kind: string) => records.find((r) => r.kind === kind) as ExpectedRecord
const answer = (records: Partial<DnsRecord>[], rcode = 'NOERROR'): DnsAnswer => ({
  rcode,
  answers: records.map((r) => ({ name: 'x', ttl: 300, value: '', ...r }) as DnsRecord),
  authorities: [],
})
const txt = (...values: string[]) => answer(values.map((value) => ({ type: 'TXT', value })))

describe('expectedRecords', () => {
  test('lists DKIM, return-path MX and SPF as required, DMARC and Ed25519 DKIM as recommended', () => {
    expect(records.map((r) => [r.kind, r.type, r.name, r.required])).toEqual([
      ['dkim', 'TXT', 'ms202611a._domainkey.example.com', true],
      ['return-path-mx', 'MX', 'mst.example.com', true],
      ['spf', 'TXT', 'mst.example.com', true],
      ['dmarc', 'TXT', '_dmarc.example.com', false],
      ['dkim-ed25519', 'TXT', 'ms202611a-ed._domainkey.example.com', false],
    ])
    expect(record('dkim').value).toBe(`v=DKIM1; k=rsa; p=${domain.dkim_public_key}`)
    expect(record('return-path-mx')).toMatchObject({ value: HOST, priority: 10 })
    expect(record('spf').value).toBe(`v=spf1 a:${HOST} ~all`)
    expect(record('dmarc').value).toBe('v=DMARC1; p=none; rua=mailto:dmarc@mst.example.com')
  })

  test("DMARC reports go to the domain's return-path host, whatever its label", () => {
    const dmarc = expectedRecords({ ...domain, return_path_label: 'bounce' }, HOST).find((r) => r.kind === 'dmarc')!
    expect(dmarc.value).toBe('v=DMARC1; p=none; rua=mailto:dmarc@bounce.example.com')
  })
})

describe('judge', () => {
  test('the DKIM key as published is right, whatever the spacing', () => {
    const spaced = `v=DKIM1;  k=rsa;\tp=${domain.dkim_public_key.slice(0, 100)} ${domain.dkim_public_key.slice(100)}`
    expect(judge(record('dkim'), txt('unrelated', spaced), HOST).result).toBe('ok')
  })

  test('another DKIM key is wrong and says what was found', () => {
    const verdict = judge(record('dkim'), txt('v=DKIM1; k=rsa; p=OTHERKEY'), HOST)
    expect(verdict).toMatchObject({ result: 'wrong', found: 'v=DKIM1; k=rsa; p=OTHERKEY' })
  })

  test('an RSA record is not the Ed25519 one', () => {
    expect(judge(record('dkim-ed25519'), txt(`v=DKIM1; k=rsa; p=${domain.ed25519_public_key}`), HOST).result).toBe('wrong')
    expect(judge(record('dkim-ed25519'), txt(`v=DKIM1; k=ed25519; p=${domain.ed25519_public_key}`), HOST).result).toBe('ok')
  })

  test.each([
    ['NXDOMAIN', 'missing'],
    ['NOERROR', 'missing'],
    ['SERVFAIL', 'unavailable'],
    ['REFUSED', 'unavailable'],
  ])('an empty answer with %s is %s', (rcode, result) => {
    for (const r of records) expect(judge(r, answer([], rcode), HOST).result).toBe(result as never)
  })

  test('the return-path MX must point to this host, trailing dot and case aside', () => {
    expect(judge(record('return-path-mx'), answer([{ type: 'MX', value: 'MX.Mailstead.Example.', priority: 10 }]), HOST).result).toBe('ok')
    expect(judge(record('return-path-mx'), answer([{ type: 'MX', value: 'mx.other.example', priority: 10 }]), HOST)).toMatchObject({
      result: 'wrong',
      found: 'mx.other.example',
    })
  })

  test.each([
    [`v=spf1 a:${HOST} ~all`, 'ok'],
    [`v=spf1 +a:${HOST} -all`, 'ok'],
    ['v=spf1 mx ~all', 'ok'],
    ['v=spf1 include:_spf.google.com ~all', 'wrong'],
    ['v=spf10 a:x ~all', 'missing'],
  ])('SPF %s is %s', (value, result) => {
    expect(judge(record('spf'), txt(value, 'other text'), HOST).result).toBe(result as never)
  })

  test('two SPF records are wrong (RFC 7208)', () => {
    expect(judge(record('spf'), txt(`v=spf1 a:${HOST} ~all`, 'v=spf1 mx -all'), HOST).result).toBe('wrong')
  })

  test('any DMARC record counts', () => {
    expect(judge(record('dmarc'), txt('v=DMARC1; p=reject; rua=mailto:d@example.com'), HOST).result).toBe('ok')
    expect(judge(record('dmarc'), txt('v=spf1 -all'), HOST).result).toBe('missing')
  })
})
