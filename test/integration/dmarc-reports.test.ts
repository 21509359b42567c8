// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { createLogger } from '../../src/lib/logger.ts'
import { returnPath } from '../../src/delivery/verp.ts'
import {
  billionLaughs,
  dmarcFixture,
  googleReport,
  googleStyle,
  googleXml,
  gzipOf,
  microsoftStyle,
  microsoftXml,
  record,
  reportMessage,
  zipBomb,
  zipOf,
} from '../helpers/dmarc.ts'
import { createWorld, type World } from '../helpers/world.ts'

const SECRET = 'test-secret-test-secret-test-secret'
const RUA = 'dmarc@mst.sender.example.com'
const SERVER_IP = '192.0.2.10'
const DAY = 'from=2024-05-20&to=2024-05-20'
let w: World
let port: number
const logs: Array<{ level: string; tag: string; msg: string }> = []

beforeAll(async () => {
  const logger = createLogger('info', (line) => logs.push(JSON.parse(line)))
  w = await createWorld({ started: true, logger, settings: { 'mx-port': '0', 'smtp-max-message-mb': '2', 'public-ips': SERVER_IP } })
  port = w.t.app.listeners()!.mx.port!
})

afterAll(() => w.close())

/** One SMTP session to the MX listener, as a reporter opens it; the reply to DATA (or the refusal before it). */
async function send(to: string[], message: string | Buffer, from = 'noreply-dmarc-support@google.com'): Promise<any> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port, tls: { rejectUnauthorized: false }, name: 'mail-yw1-f202.google.com' } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  try {
    return await new Promise((resolve) => connection.send({ from, to }, message as never, (error, info) => resolve(error ?? info)))
  } finally {
    connection.quit()
  }
}

const summary = async (query = DAY, key = w.key, id = w.domain.id) => w.t.request('GET', `/api/v1/domains/${id}/dmarc?${query}`, { key })
const stored = async () => ({
  reports: await w.t.app.db.selectFrom('dmarc_reports').selectAll().orderBy('id').execute(),
  rows: await w.t.app.db.selectFrom('dmarc_rows').selectAll().orderBy('id').execute(),
})

describe("Google's and Microsoft's reports, over SMTP, read over HTTP", () => {
  test('each is received with 250 and stored per day and source IP', async () => {
    const google = await send([RUA], dmarcFixture('google.eml'))
    expect(google.response).toMatch(/^250 .*DMARC report received/)
    const microsoft = await send([RUA], dmarcFixture('microsoft.eml'), 'dmarcreport@microsoft.com')
    expect(microsoft.response).toMatch(/^250 .*DMARC report received/)
    const { reports, rows } = await stored()
    expect(reports.map((r) => [r.org_name, r.report_id, r.day, r.messages, r.records])).toEqual([
      ['google.com', '11453472036582476734', '2024-05-20', 50, 3],
      ['Enterprise Outlook', '9c1e5b7d0a3f4e2b8d6c4a1f0e9b7d25', '2024-05-20', 14, 2],
    ])
    expect(rows.map((r) => [r.source_ip, r.count, r.dkim_aligned, r.spf_aligned, r.dkim_result, r.spf_result, r.disposition])).toEqual([
      ['192.0.2.10', 41, 1, 1, 'pass', 'pass', 'none'],
      ['209.85.220.41', 6, 1, 0, 'pass', 'pass', 'none'],
      ['203.0.113.66', 3, 0, 0, 'none', 'softfail', 'none'],
      ['192.0.2.10', 12, 1, 1, 'pass', 'pass', 'none'],
      ['2001:db8:5::17', 2, 0, 0, 'fail', 'softfail', 'none'],
    ])
    expect(logs.find((l) => l.tag === 'DMARC' && l.msg.startsWith('report from google.com'))?.msg).toBe(
      'report from google.com for sender.example.com: 50 messages from 3 records on 2024-05-20',
    )
  })

  test('the summary: totals, pass and aligned counts, per day and per source, the sources that are not this server flagged', async () => {
    const { status, body } = await summary()
    expect(status).toBe(200)
    expect(body).toMatchObject({
      domain: { id: w.domain.id, name: 'sender.example.com' },
      from: '2024-05-20',
      to: '2024-05-20',
      serverIps: [SERVER_IP],
      warning: null,
      reports: {
        count: 2,
        reporters: [
          { orgName: 'google.com', reports: 1, messages: 50 },
          { orgName: 'Enterprise Outlook', reports: 1, messages: 14 },
        ],
      },
      totals: { messages: 64, dmarcPass: 59, dmarcFail: 5, dkimAligned: 59, spfAligned: 53, dkimPass: 59, spfPass: 59, quarantined: 0, rejected: 0, fromThisServer: 53, fromElsewhere: 11 },
      days: [{ date: '2024-05-20', messages: 64, dmarcPass: 59, dkimAligned: 59, spfAligned: 53 }],
      sourceCount: 4,
      flagged: 3,
    })
    expect(body.sources.map((s: any) => [s.ip, s.thisServer, s.messages, s.dmarcPass, s.flag === null])).toEqual([
      ['192.0.2.10', true, 53, 53, true],
      ['209.85.220.41', false, 6, 6, false],
      ['203.0.113.66', false, 3, 0, false],
      ['2001:db8:5::17', false, 2, 0, false],
    ])
    expect(body.sources[2].flag).toBe('not this server, and its mail fails DMARC: someone else sends as sender.example.com (spoofing, or a service not set up for the domain)')
  })

  test('a report received twice counts once', async () => {
    const before = await stored()
    const again = await send([RUA], dmarcFixture('google.eml'))
    expect(again.response).toMatch(/^250 .*already received; counted once/)
    // Sent again another way (plain XML this time), the same report id from the same reporter is the same report.
    expect((await send([RUA], reportMessage({ to: RUA, body: dmarcFixture('google.com!sender.example.com!1716163200!1716249599.xml').toString() }))).response).toMatch(/counted once/)
    expect(await stored()).toEqual(before)
    expect((await summary()).body.totals.messages).toBe(64)
  })

  test('another report from the same reporter counts, on its own day', async () => {
    const xml = googleReport({ reportId: '5717107811868587391', begin: 1716249600, end: 1716335999, records: record(SERVER_IP, 7) })
    expect((await send([RUA], googleStyle(RUA, xml, 'google.com!sender.example.com!1716249600!1716335999.xml'))).response).toMatch(/^250/)
    const { body } = await summary('from=2024-05-20&to=2024-05-21')
    expect(body.days.map((d: any) => [d.date, d.messages])).toEqual([
      ['2024-05-20', 64],
      ['2024-05-21', 7],
    ])
    expect(body.sources[0]).toMatchObject({ ip: SERVER_IP, messages: 60, firstDay: '2024-05-20', lastDay: '2024-05-21' })
    expect((await summary()).body.totals.messages).toBe(64)
  })

  test('without from and to, the last 30 days', async () => {
    const today = Math.floor(Date.now() / 86_400_000) * 86_400
    const xml = googleReport({ reportId: 'today-1', begin: today, end: today + 86_399, records: record(SERVER_IP, 2) })
    expect((await send([RUA], googleStyle(RUA, xml))).response).toMatch(/^250/)
    const { body } = await summary('')
    expect(body.to).toBe(new Date(today * 1000).toISOString().slice(0, 10))
    expect(body.from).toBe(new Date((today - 29 * 86_400) * 1000).toISOString().slice(0, 10))
    expect(body.totals.messages).toBe(2)
  })
})

describe('the summary route', () => {
  test.each([
    ['from=2024-5-20', 'from', 'must be a date as YYYY-MM-DD'],
    ['to=2024-02-30', 'to', 'must be a date as YYYY-MM-DD'],
    ['from=2024-05-21&to=2024-05-20', 'from', 'must not be after to (2024-05-21 is after 2024-05-20)'],
    ['from=2020-01-01&to=2024-05-20', 'to', 'range may cover at most 366 days'],
  ])('?%s is a 422 naming %s', async (query, field, message) => {
    const { status, body } = await summary(query)
    expect(status).toBe(422)
    expect(body.errors).toMatchObject([{ field, message: expect.stringContaining(message) }])
  })

  test("another project's domain is not found; no key is a 401", async () => {
    const other = await w.t.project('Other')
    expect((await summary(DAY, other.secretKey)).status).toBe(404)
    expect((await summary(DAY, w.key, 999_999)).status).toBe(404)
    expect((await w.t.request('GET', `/api/v1/domains/${w.domain.id}/dmarc`)).status).toBe(401)
  })

  test('is documented', async () => {
    const { body } = await w.t.request('GET', '/swagger/json')
    expect(body.paths['/api/v1/domains/{id}/dmarc'].get.summary).toContain('DMARC')
  })
})

describe('what the report address refuses', () => {
  test.each([
    ['the report address of a domain this server does not have', 'dmarc@mst.unknown.example'],
    ['dmarc@ the domain itself rather than its return-path host', 'dmarc@sender.example.com'],
    ['another label of the domain', 'dmarc@bounce.sender.example.com'],
  ])('%s: 550 at RCPT, as any address it does not take', async (_, to) => {
    const result = await send([to], googleStyle(to, googleXml()))
    expect(result.responseCode).toBe(550)
    expect(result.response).toContain('5.7.1')
  })

  test('a report travels alone: a second recipient in its transaction gets 452, to come again in its own', async () => {
    const bounce = returnPath(SECRET, 1, 'mst.sender.example.com')
    const withBounce = await send([RUA, bounce], dmarcFixture('google.eml'))
    expect(withBounce.response).toMatch(/^250 .*counted once/)
    expect(withBounce.rejected).toEqual([bounce])
    expect(withBounce.rejectedErrors[0].response).toMatch(/^452 4\.5\.3 A DMARC report goes in a message of its own/)
    const afterBounce = await send([bounce, RUA], 'Subject: x\r\n\r\nx')
    expect(afterBounce.rejected).toEqual([RUA])
  })
})

describe('bad reports: 554 with the reason, nothing stored, nothing else harmed', () => {
  const badCases: Array<[string, () => string, RegExp]> = [
    [
      'a zip bomb (64 MB of zeros claiming 2 KB)',
      () => reportMessage({ to: RUA, attachment: { name: 'google.com!sender.example.com!1!2.zip', contentType: 'application/zip', data: zipBomb(64 * 1024 * 1024, 2000) } }),
      /^554 5\.6\.0 DMARC report refused: attachment google\.com!sender\.example\.com!1!2\.zip: the zip entry report\.xml unpacks to more than 10 MB; refused as a decompression bomb$/,
    ],
    [
      'billion laughs in a gzip',
      () => reportMessage({ to: RUA, attachment: { name: 'r.xml.gz', contentType: 'application/gzip', data: gzipOf(billionLaughs()) } }),
      /: attachment r\.xml\.gz: the XML has a DOCTYPE; reports have none and it is refused unread \(entity expansion\)$/,
    ],
    ['malformed XML', () => googleStyle(RUA, googleXml().replace('</policy_published>', '')), /: the XML is malformed: .+ \(line \d+, column \d+\)$/],
    ['a report about another domain', () => microsoftStyle(RUA, microsoftXml().replaceAll('sender.example.com', 'victim.example')), /: the report is about victim\.example, not sender\.example\.com, the domain it was addressed to$/],
    [
      'a zip with no XML in it',
      () => reportMessage({ to: RUA, attachment: { name: 'report.zip', contentType: 'application/zip', data: zipOf({ 'report.txt': 'see attached' }) } }),
      /: attachment report\.zip: the zip holds no \.xml file \(it holds report\.txt\)$/,
    ],
    ['a negative count', () => googleStyle(RUA, googleReport({ reportId: 'neg', records: record(SERVER_IP, -41) })), /: record 1: <count> "-41" is not a whole number from 0 to 1000000000$/],
    ['a bad IP', () => googleStyle(RUA, googleReport({ reportId: 'ip', records: record('192.0.2.999', 1) })), /: record 1: <source_ip> "192\.0\.2\.999" is not an IP address$/],
    ['no report at all', () => 'Subject: hello\r\n\r\nIs this the right address?\r\n', /: the message carries no report/],
  ]

  test.each(badCases)('%s', async (_, message, reason) => {
    const before = await stored()
    const result = await send([RUA], message())
    expect(result.responseCode).toBe(554)
    expect(result.response).toMatch(reason)
    expect(await stored()).toEqual(before)
    const logged = logs.findLast((l) => l.tag === 'DMARC')!
    expect(logged.level).toBe('warn')
    expect(`554 5.6.0 DMARC report refused: ${logged.msg.replace(`report to ${RUA} refused: `, '')}`).toMatch(reason)
  })

  test('after all of them, in one session after another, the server still takes a good report', async () => {
    const before = (await summary()).body.totals.messages
    const xml = googleReport({ reportId: 'after-the-storm', records: record(SERVER_IP, 5) })
    expect((await send([RUA], googleStyle(RUA, xml))).response).toMatch(/^250/)
    expect((await summary()).body.totals.messages).toBe(before + 5)
  })

  test('a domain added by two projects and verified by neither: its reports are nobody’s', async () => {
    const [a, b] = [await w.t.project('A'), await w.t.project('B')]
    for (const project of [a, b]) await w.t.request('POST', '/api/v1/domains', { key: project.secretKey, body: { name: 'twin.example.com', region: 'us-east-1' } })
    const to = 'dmarc@mst.twin.example.com'
    const result = await send([to], googleStyle(to, googleReport({ domain: 'twin.example.com' })))
    expect(result.responseCode).toBe(554)
    expect(result.response).toContain('no sending domain of this server owns this address')
  })

  test("removing a domain removes its reports", async () => {
    const project = await w.t.project('Leaving')
    const added = await w.t.request('POST', '/api/v1/domains', { key: project.secretKey, body: { name: 'leaving.example.com', region: 'us-east-1' } })
    const to = 'dmarc@mst.leaving.example.com'
    expect((await send([to], googleStyle(to, googleReport({ domain: 'leaving.example.com' })))).response).toMatch(/^250/)
    expect((await summary(DAY, project.secretKey, added.body.id)).body.totals.messages).toBe(50)
    await w.t.request('DELETE', `/api/v1/domains/${added.body.id}`, { key: project.secretKey })
    expect(await w.t.app.db.selectFrom('dmarc_reports').select('id').where('domain_id', '=', added.body.id).execute()).toEqual([])
    expect(await w.t.app.db.selectFrom('dmarc_rows').select('id').where('domain_id', '=', added.body.id).execute()).toEqual([])
    // The report address goes with it.
    expect((await send([to], googleStyle(to, googleReport({ domain: 'leaving.example.com' })))).responseCode).toBe(550)
  })
})
