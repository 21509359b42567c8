import { describe, expect, test } from 'bun:test'
import type { DnsRecord } from '../api/domains.api.ts'
import { domainStatus, recordPurpose, recordVerdict, txtStrings, zoneFile, zoneFileName, zoneLine } from './domains-view.ts'

const KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'.padEnd(392, 'x')

const record = (changes: Partial<DnsRecord>): DnsRecord => ({
  type: 'TXT',
  name: 'example.com',
  value: '',
  ttl: '3600',
  status: 'PENDING',
  priority: '',
  recommended: false,
  found: null,
  problem: null,
  unpublishable: null,
  ...changes,
})

/** The records the API lists for example.com on the host mail.example.test, in its order. */
const RECORDS: DnsRecord[] = [
  record({ name: 'ms240101ab._domainkey.example.com', value: `v=DKIM1; k=rsa; p=${KEY}` }),
  record({ type: 'MX', name: 'mst.example.com', value: 'mail.example.test', priority: '10' }),
  record({ name: 'mst.example.com', value: 'v=spf1 a:mail.example.test ~all' }),
  record({ name: '_dmarc.example.com', value: 'v=DMARC1; p=none; rua=mailto:dmarc@mst.example.com', recommended: true }),
  record({ name: 'ms240101ab-ed._domainkey.example.com', value: 'v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=', recommended: true }),
]

describe('the zone file', () => {
  test('one line a record, absolute names, as `mailstead domain records` prints them', () => {
    expect(zoneLine(RECORDS[1]!)).toBe('mst.example.com. 3600 IN MX 10 mail.example.test.')
    expect(zoneLine(RECORDS[2]!)).toBe('mst.example.com. 3600 IN TXT "v=spf1 a:mail.example.test ~all"')
    expect(zoneLine(RECORDS[3]!)).toBe('_dmarc.example.com. 3600 IN TXT "v=DMARC1; p=none; rua=mailto:dmarc@mst.example.com"')
  })

  test('a DKIM key longer than 255 characters is split into quoted strings of 255 at most', () => {
    const line = zoneLine(RECORDS[0]!)
    const value = `v=DKIM1; k=rsa; p=${KEY}`
    expect(line).toBe(`ms240101ab._domainkey.example.com. 3600 IN TXT "${value.slice(0, 255)}" "${value.slice(255)}"`)
    expect(txtStrings('x'.repeat(510))).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(255)}"`)
    expect(txtStrings('x'.repeat(511)).split(' ').map((part) => part.length - 2)).toEqual([255, 255, 1])
  })

  test('quotes and backslashes are escaped; an empty value is one empty string; a split never cuts a character', () => {
    expect(txtStrings('say "hi" \\ there')).toBe('"say \\"hi\\" \\\\ there"')
    expect(txtStrings('')).toBe('""')
    const parts = txtStrings(`${'a'.repeat(254)}é`).split(' ')
    expect(parts).toEqual([`"${'a'.repeat(254)}"`, '"é"'])
  })

  test('names and exchanges that already end in a dot are not given a second one; a missing TTL or priority takes the defaults', () => {
    expect(zoneLine(record({ type: 'MX', name: 'mst.example.com.', value: 'mail.example.test.', priority: '', ttl: '' }))).toBe('mst.example.com. 3600 IN MX 10 mail.example.test.')
  })

  test('the whole file: a comment naming the domain, then every record, the recommended ones marked', () => {
    const text = zoneFile({ name: 'example.com', dnsRecords: RECORDS })
    const lines = text.trimEnd().split('\n')
    expect(text.endsWith('\n')).toBe(true)
    expect(lines[0]).toStartWith('; The DNS records that example.com publishes')
    const data = lines.filter((line) => !line.startsWith(';'))
    expect(data).toHaveLength(5)
    expect(data.filter((line) => line.endsWith(' ; recommended')).map((line) => line.split(' ')[0])).toEqual(['_dmarc.example.com.', 'ms240101ab-ed._domainkey.example.com.'])
    expect(zoneFileName({ name: 'example.com' })).toBe('example.com.zone')
  })
})

describe('the zone file on a host name that is not a public DNS name', () => {
  const REASON = 'it would name "vm", which is not a public DNS name; set MAILSTEAD_HOSTNAME (--hostname) to this server\'s name, then get the records again'
  const ON_VM = RECORDS.map((r) =>
    r.name === 'mst.example.com' ? { ...r, value: r.value.replace('mail.example.test', 'vm'), unpublishable: REASON } : r,
  )

  test('a record that cannot be published yet is a comment saying why, as the CLI prints it; the others are lines as before', () => {
    const lines = zoneFile({ name: 'example.com', dnsRecords: ON_VM }).trimEnd().split('\n').slice(2)
    expect(lines).toEqual([
      zoneLine(RECORDS[0]!),
      `; mst.example.com. MX: not given, ${REASON}`,
      `; mst.example.com. TXT: not given, ${REASON}`,
      `${zoneLine(RECORDS[3]!)} ; recommended`,
      `${zoneLine(RECORDS[4]!)} ; recommended`,
    ])
    // No line a zone editor would import names the host.
    expect(lines.filter((line) => !line.startsWith(';')).join('\n')).not.toContain('vm')
  })

  test('an answer without the field (an older server) gives every record as a line', () => {
    const old = RECORDS.map(({ unpublishable, ...rest }) => rest)
    expect(zoneFile({ name: 'example.com', dnsRecords: old })).toBe(zoneFile({ name: 'example.com', dnsRecords: RECORDS }))
  })
})

describe('what a record is for', () => {
  test('named from its type and content', () => {
    expect(RECORDS.map(recordPurpose)).toEqual(['DKIM', 'Return-path MX', 'SPF', 'DMARC', 'DKIM (Ed25519)'])
    expect(recordPurpose(record({ value: 'something else' }))).toBe('TXT')
  })
})

describe('verdicts', () => {
  test('a record: good, not checked yet, not found or wrong', () => {
    expect(recordVerdict(record({ status: 'SUCCESS', found: 'v=spf1 a:mail.example.test ~all' }), true)).toEqual({ tone: 'ok', label: 'Good' })
    expect(recordVerdict(record({}), false)).toEqual({ tone: 'wait', label: 'Not checked yet' })
    expect(recordVerdict(record({}), true)).toEqual({ tone: 'wait', label: 'Not checked yet' })
    expect(recordVerdict(record({ problem: 'no SPF record (v=spf1)' }), true)).toEqual({ tone: 'bad', label: 'Not found' })
    expect(recordVerdict(record({ status: 'FAILED', found: 'v=spf1 -all', problem: 'the SPF record does not authorise mail.example.test' }), true)).toEqual({ tone: 'bad', label: 'Wrong' })
    // A recommended record missing is a warning: the domain may send without it.
    expect(recordVerdict(record({ recommended: true, problem: 'no v=DMARC1 record' }), true)).toEqual({ tone: 'warn', label: 'Not found' })
  })

  test('a domain: only SUCCESS is verified', () => {
    expect(domainStatus('SUCCESS')).toEqual({ tone: 'ok', label: 'Verified' })
    expect(domainStatus('NOT_STARTED').tone).toBe('wait')
    expect(domainStatus('PENDING').tone).toBe('wait')
    expect(domainStatus('FAILED').tone).toBe('bad')
    expect(domainStatus('TEMPORARY_FAILURE').label).toBe('Temporary failure')
  })
})
