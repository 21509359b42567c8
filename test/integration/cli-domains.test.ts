// @database-incidental: the CLI's parsing and messages; the services it calls are tested on both databases elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'
import { publishRecords } from '../helpers/domains.ts'
import { FakeDns, FAKE_DNS_TIMEOUT_MS } from '../helpers/fake-dns.ts'

const HOST = 'mx.mailstead.test'
let dns: FakeDns
let t: TestApp
let flags: string[]
let projectId: string

beforeAll(async () => {
  dns = await new FakeDns().start()
  t = await createTestApp({ hostname: HOST })
  flags = ['--data-dir', t.dataDir, ...t.databaseFlags, '--secret', 'test-secret-test-secret-test-secret', '--hostname', HOST, '--dns-servers', dns.address, '--dns-timeout-ms', String(FAKE_DNS_TIMEOUT_MS)]
  projectId = String((await t.project()).id)
})

afterAll(async () => {
  await t.close()
  await dns.stop()
})

describe('mailstead domain', () => {
  test('add prints the records to publish; list shows the domain', async () => {
    const added = await cli(['domain', 'add', 'cli.example.com', '--project', projectId, ...flags])
    expect(added.code).toBe(0)
    expect(added.out).toContain('Added cli.example.com to project')
    expect(added.out).toContain(`mst.cli.example.com. 3600 IN MX 10 ${HOST}.`)
    expect(added.err).toBe('')
    const listed = await cli(['domain', 'list', ...flags])
    expect(listed.out).toMatch(/cli\.example\.com\s+NOT_STARTED\s+us-east-1/)
  })

  test('add warns, and still adds, when the server\'s host name is not fully qualified', async () => {
    const bare = flags.map((flag) => (flag === HOST ? 'mailbox' : flag))
    const added = await cli(['domain', 'add', 'bare.example.com', '--project', projectId, ...bare])
    expect(added.code).toBe(0)
    expect(added.err).toContain('warning: MAILSTEAD_HOSTNAME is "mailbox", not a fully qualified name')
    expect(added.out).toContain('Added bare.example.com to project')
    // No record names the bare host (`MX 10 mailbox.` cannot work): a comment says what to set.
    expect(added.out).not.toMatch(/^[^;].*\bmailbox\b/m)
    expect(added.out).toContain('; mst.bare.example.com. MX: not given, it would name "mailbox", which is not a public DNS name; set MAILSTEAD_HOSTNAME (--hostname)')
    expect(added.out).toContain('; mst.bare.example.com. TXT: not given')
    expect(added.out).toMatch(/^ms\d{6}a\._domainkey\.bare\.example\.com\. 3600 IN TXT /m)
    const records = await cli(['domain', 'records', 'bare.example.com', ...bare])
    expect(records.out.split('\n').filter((line) => line.startsWith(';'))).toHaveLength(2)
  })

  test('records prints zone-file lines, long TXT values split', async () => {
    await cli(['domain', 'add', 'zone.example.com', '--project', projectId, ...flags])
    const { code, out } = await cli(['domain', 'records', 'zone.example.com', ...flags])
    expect(code).toBe(0)
    const lines = out.split('\n')
    expect(lines).toHaveLength(5)
    expect(lines[0]).toMatch(/^ms\d{6}a\._domainkey\.zone\.example\.com\. 3600 IN TXT "v=DKIM1; k=rsa; p=[^"]+" "[^"]+"$/)
    expect(lines[2]).toBe(`mst.zone.example.com. 3600 IN TXT "v=spf1 a:${HOST} ~all"`)
  })

  test('verify checks now and prints each record: expected, found, verdict', async () => {
    const added = await cli(['domain', 'add', 'check.example.com', '--project', projectId, '--json', ...flags])
    const domain = JSON.parse(added.out)
    publishRecords(dns, domain.dnsRecords, { except: ['_dmarc.check.example.com'] })
    const { code, out } = await cli(['domain', 'verify', 'check.example.com', ...flags])
    expect(code).toBe(0)
    expect(out).toContain(`Return-path MX MX mst.check.example.com\n  expected: 10 ${HOST}\n  found:    ${HOST}\n  verdict:  ok`)
    expect(out).toContain('DMARC TXT _dmarc.check.example.com (recommended)\n  expected: v=DMARC1; p=none; rua=mailto:dmarc@mst.check.example.com\n  found:    nothing\n  verdict:  missing (no v=DMARC1 record)')
    expect(out).toEndWith('check.example.com: SUCCESS')
  })

  test('remove asks, then removes', async () => {
    await cli(['domain', 'add', 'gone.example.com', '--project', projectId, ...flags])
    expect((await cli(['domain', 'remove', 'gone.example.com', ...flags], { answer: false })).code).toBe(2)
    const removed = await cli(['domain', 'remove', 'gone.example.com', '--yes', ...flags])
    expect(removed).toMatchObject({ code: 0, out: `Removed gone.example.com from project ${projectId}` })
    expect((await cli(['domain', 'records', 'gone.example.com', ...flags])).err).toContain('No domain gone.example.com')
  })

  test('a name in several projects needs --project', async () => {
    const other = String((await t.project('Second')).id)
    await cli(['domain', 'add', 'both.example.com', '--project', projectId, ...flags])
    await cli(['domain', 'add', 'both.example.com', '--project', other, ...flags])
    expect((await cli(['domain', 'records', 'both.example.com', ...flags])).err).toContain('add --project')
    expect((await cli(['domain', 'records', 'both.example.com', '--project', other, ...flags])).code).toBe(0)
  })

  test('a bad name is refused with the reason', async () => {
    const result = await cli(['domain', 'add', 'bad name.com', '--project', projectId, ...flags])
    expect(result.code).toBe(1)
    expect(result.err).toContain('spaces')
  })
})
