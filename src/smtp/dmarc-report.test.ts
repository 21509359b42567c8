import { describe, expect, test } from 'bun:test'
import { strFromU8, unzipSync, gunzipSync } from 'fflate'
import { simpleParser } from 'mailparser'
import {
  billionLaughs,
  dmarcFixture,
  GOOGLE_XML_NAME,
  googleReport,
  googleXml,
  gzipBomb,
  gzipOf,
  MICROSOFT_XML_NAME,
  microsoftXml,
  record,
  reportMessage,
  zipBomb,
  zipOf,
} from '../../test/helpers/dmarc.ts'
import { formatOf, parseDmarcMessage, parseDmarcXml, unpackReport, type DmarcParse } from './dmarc-report.ts'

const TO = 'dmarc@mst.sender.example.com'
const MB = 1024 * 1024
const xml = (text: string) => parseDmarcXml(Buffer.from(text))
const reasonOf = (parsed: { ok: boolean; reason?: string }) => (parsed.ok ? 'ok' : parsed.reason)
const ok = (parsed: DmarcParse | ReturnType<typeof parseDmarcXml>) => {
  if (!parsed.ok) throw new Error(`refused: ${parsed.reason}`)
  return parsed.report
}

describe('the fixtures', () => {
  test.each([
    ['google.eml', GOOGLE_XML_NAME, 'zip'],
    ['microsoft.eml', MICROSOFT_XML_NAME, 'gzip'],
  ])('%s carries %s, as its %s attachment', async (eml, name, format) => {
    const mail = await simpleParser(dmarcFixture(eml))
    const attachment = mail.attachments[0]!
    const unpacked = format === 'zip' ? unzipSync(attachment.content)[name]! : gunzipSync(attachment.content)
    expect(attachment.filename).toBe(format === 'zip' ? name.replace(/\.xml$/, '.zip') : `${name}.gz`)
    expect(attachment.contentType).toBe(format === 'zip' ? 'application/zip' : 'application/gzip')
    expect(strFromU8(unpacked)).toBe(dmarcFixture(name).toString('utf8'))
  })
})

describe("parseDmarcMessage on reporters' mail", () => {
  test("Google's: a zip attachment", async () => {
    const parsed = await parseDmarcMessage(dmarcFixture('google.eml'))
    expect(parsed).toMatchObject({ ok: true, container: `zip attachment ${GOOGLE_XML_NAME.replace(/\.xml$/, '.zip')}` })
    const report = ok(parsed)
    expect(report).toMatchObject({
      orgName: 'google.com',
      email: 'noreply-dmarc-support@google.com',
      // Twenty digits stay text: as a number it would lose its last ones.
      reportId: '11453472036582476734',
      begin: 1716163200,
      end: 1716249599,
      domain: 'sender.example.com',
      policy: { p: 'none', sp: 'none', adkim: 'r', aspf: 'r', pct: '100' },
    })
    expect(report.records.map((r) => [r.sourceIp, r.count, r.dkimAligned, r.spfAligned, r.dkimResult, r.spfResult, r.disposition])).toEqual([
      ['192.0.2.10', 41, true, true, 'pass', 'pass', 'none'],
      ['209.85.220.41', 6, true, false, 'pass', 'pass', 'none'],
      ['203.0.113.66', 3, false, false, 'none', 'softfail', 'none'],
    ])
    expect(report.records[0]!.dkim).toEqual([
      { domain: 'sender.example.com', result: 'pass', selector: 'ms202405a' },
      { domain: 'sender.example.com', result: 'pass', selector: 'ms202405a-ed' },
    ])
  })

  test("Microsoft's: a gzip attachment, namespaces on <feedback>, envelope_to and scope, IPv6 written long", async () => {
    const parsed = await parseDmarcMessage(dmarcFixture('microsoft.eml'))
    expect(parsed).toMatchObject({ ok: true, container: `gzip attachment ${MICROSOFT_XML_NAME}.gz` })
    const report = ok(parsed)
    expect(report).toMatchObject({ orgName: 'Enterprise Outlook', email: 'dmarcreport@microsoft.com', reportId: '9c1e5b7d0a3f4e2b8d6c4a1f0e9b7d25', end: 1716249600 })
    expect(report.records).toEqual([
      {
        sourceIp: '192.0.2.10',
        count: 12,
        disposition: 'none',
        dkimAligned: true,
        spfAligned: true,
        dkimResult: 'pass',
        spfResult: 'pass',
        headerFrom: 'sender.example.com',
        envelopeFrom: 'mst.sender.example.com',
        dkim: [{ domain: 'sender.example.com', selector: 'ms202405a', result: 'pass' }],
        spf: [{ domain: 'mst.sender.example.com', scope: 'mfrom', result: 'pass' }],
      },
      expect.objectContaining({ sourceIp: '2001:db8:5::17', count: 2, dkimAligned: false, spfAligned: false, dkimResult: 'fail', spfResult: 'softfail' }),
    ])
  })

  test('plain XML: as the body, or attached as text/xml or application/xml', async () => {
    const bodies = [
      reportMessage({ to: TO, body: googleXml() }),
      reportMessage({ to: TO, attachment: { name: 'report.xml', contentType: 'text/xml', data: Buffer.from(googleXml()) } }),
      reportMessage({ to: TO, attachment: { name: 'report.xml', contentType: 'application/xml', data: Buffer.from(googleXml()) } }),
    ]
    for (const body of bodies) expect(ok(await parseDmarcMessage(Buffer.from(body))).records).toHaveLength(3)
  })

  test('the container is known by its bytes, not its label: a gzip sent as application/octet-stream', async () => {
    const message = reportMessage({ to: TO, attachment: { name: 'report', contentType: 'application/octet-stream', data: gzipOf(googleXml()) } })
    expect(await parseDmarcMessage(Buffer.from(message))).toMatchObject({ ok: true, container: 'gzip attachment report' })
  })

  test('an archive is preferred to other markup attached before it', async () => {
    const boundary = 'b1'
    const part = (type: string, name: string, data: Uint8Array) =>
      `--${boundary}\r\nContent-Type: ${type}; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(data).toString('base64')}\r\n`
    const message = `Subject: report\r\nContent-Type: multipart/mixed; boundary="${boundary}"\r\n\r\n${part('text/html', 'notice.html', Buffer.from('<p>Your report</p>'))}${part('application/zip', 'report.zip', zipOf({ 'report.xml': googleXml() }))}--${boundary}--\r\n`
    expect(await parseDmarcMessage(Buffer.from(message))).toMatchObject({ ok: true, container: 'zip attachment report.zip' })
  })

  test('a message with no report says so', async () => {
    expect(reasonOf(await parseDmarcMessage(Buffer.from('Subject: hello\r\n\r\nJust saying hi.\r\n')))).toBe(
      'the message carries no report: no zip, gzip or XML attachment, and its body is not XML',
    )
    const image = reportMessage({ to: TO, attachment: { name: 'cat.png', contentType: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]) } })
    expect(reasonOf(await parseDmarcMessage(Buffer.from(image)))).toStartWith('the message carries no report')
  })
})

describe('unpacking', () => {
  test('formatOf reads the first bytes', () => {
    expect(formatOf(zipOf({ 'a.xml': '<a/>' }))).toBe('zip')
    expect(formatOf(gzipOf('<a/>'))).toBe('gzip')
    expect(formatOf(Buffer.from('\ufeff \r\n<?xml version="1.0"?><a/>'))).toBe('xml')
    expect(formatOf(Buffer.from('hello'))).toBeNull()
  })

  test('a zip bomb that claims to be small is stopped while it inflates: 100 MB of zeros against a 1 MB limit', () => {
    const bomb = zipBomb(100 * MB, 2000)
    expect(bomb.length).toBeLessThan(200_000)
    const before = process.memoryUsage().rss
    const started = performance.now()
    expect(reasonOf(unpackReport(bomb, MB))).toBe('the zip entry report.xml unpacks to more than 1 MB; refused as a decompression bomb')
    expect(performance.now() - started).toBeLessThan(1000)
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * MB)
  })

  test('the bombs are real: under a limit above their size they unpack whole', () => {
    const zip = unpackReport(zipBomb(8 * MB, 2000), 9 * MB)
    const gzip = unpackReport(gzipBomb(8 * MB), 9 * MB)
    expect([zip.ok && zip.xml.length, gzip.ok && gzip.xml.length]).toEqual([8 * MB, 8 * MB])
  })

  test('a zip that says it is too big is refused before inflating', () => {
    expect(reasonOf(unpackReport(zipBomb(2 * MB), MB))).toBe('the zip entry report.xml says it unpacks to 2 MB, more than 1 MB')
  })

  test('a gzip bomb is stopped while it inflates', () => {
    expect(reasonOf(unpackReport(gzipBomb(64 * MB), MB))).toBe('the gzip unpacks to more than 1 MB; refused as a decompression bomb')
  })

  test('a zip with no XML in it names what it holds', () => {
    expect(reasonOf(unpackReport(zipOf({ 'readme.txt': 'hello', 'logo.png': new Uint8Array([1, 2, 3]) }), MB))).toBe(
      'the zip holds no .xml file (it holds readme.txt, logo.png)',
    )
    expect(reasonOf(unpackReport(zipOf({}), MB))).toBe('the zip is empty')
  })

  test('a zip with several entries gives its .xml one', () => {
    const unpacked = unpackReport(zipOf({ 'notes.txt': 'x', 'report.xml': '<feedback/>' }), MB)
    expect(unpacked.ok && Buffer.from(unpacked.xml).toString()).toBe('<feedback/>')
  })

  test('damaged archives are refused with what is wrong, never thrown', () => {
    const zip = zipOf({ 'report.xml': googleXml() })
    const gzip = gzipOf(googleXml())
    expect(reasonOf(unpackReport(zip.subarray(0, zip.length - 30), MB))).toBe('the zip has no central directory (truncated or not a zip)')
    expect(reasonOf(unpackReport(gzip.subarray(0, 40), MB))).toMatch(/^the gzip (is damaged|ends before)/)
    const garbled = Buffer.from(zip)
    garbled.fill(0xff, 40, 60)
    expect(reasonOf(unpackReport(garbled, MB))).toMatch(/^the zip is damaged: |^the zip entry report\.xml /)
    expect(reasonOf(unpackReport(Buffer.from('hello'), MB))).toBe('neither zip, gzip nor XML')
  })

  test('random damage to a zip or gzip never throws', () => {
    let seed = 7
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (const original of [zipOf({ 'report.xml': googleXml() }), gzipOf(googleXml())]) {
      for (let i = 0; i < 300; i++) {
        const damaged = Buffer.from(original)
        for (let j = 0; j < 4; j++) damaged[4 + Math.floor(random() * (damaged.length - 4))] = Math.floor(random() * 256)
        const unpacked = unpackReport(damaged, MB)
        if (unpacked.ok) expect(() => parseDmarcXml(unpacked.xml)).not.toThrow()
      }
    }
  })
})

describe('parseDmarcXml refuses', () => {
  test('billion laughs, unexpanded', () => {
    const started = performance.now()
    expect(reasonOf(xml(billionLaughs()))).toBe('the XML has a DOCTYPE; reports have none and it is refused unread (entity expansion)')
    expect(performance.now() - started).toBeLessThan(100)
  })

  test('an external entity (XXE)', () => {
    const xxe = googleXml().replace('<feedback>', '<!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<feedback>').replace('google.com</org_name>', '&xxe;</org_name>')
    expect(reasonOf(xml(xxe))).toStartWith('the XML has a DOCTYPE')
  })

  test('malformed XML, saying where', () => {
    expect(reasonOf(xml(googleXml().replace('</report_metadata>', '')))).toMatch(/^the XML is malformed: .+ \(line \d+, column \d+\)$/)
    expect(reasonOf(xml('<feedback><report_metadata>'))).toMatch(/^the XML is malformed: /)
    expect(reasonOf(xml('<?xml version="1.0"?>'))).toMatch(/^the XML is malformed: |^not a DMARC aggregate report/)
  })

  test('XML that is not UTF-8', () => {
    expect(reasonOf(parseDmarcXml(Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0xfe, 0x3c, 0x2f, 0x61, 0x3e])))).toBe('the XML is not UTF-8')
  })

  test('XML over the limit', () => {
    expect(reasonOf(parseDmarcXml(Buffer.from(googleXml()), { maxXmlBytes: 100, maxRecords: 10 }))).toBe('the XML is larger than 0 MB')
  })

  test('XML that is not an aggregate report', () => {
    expect(reasonOf(xml('<html><body>hi</body></html>'))).toBe('not a DMARC aggregate report: the root element is <html>, not <feedback>')
    expect(reasonOf(xml(googleXml().replace(/<report_id>.*<\/report_id>/, '')))).toBe('<report_metadata> has no <report_id>')
    expect(reasonOf(xml(googleXml().replace(/<policy_published>[\s\S]*<\/policy_published>/, '')))).toBe('<feedback> has no <policy_published>')
  })

  test.each([
    ['a negative count', record('192.0.2.1', -5), 'record 1: <count> "-5" is not a whole number from 0 to 1000000000'],
    ['a count of 10^12', record('192.0.2.1', '1000000000000'), 'record 1: <count> "1000000000000" is not a whole number from 0 to 1000000000'],
    ['a fractional count', record('192.0.2.1', '1.5'), 'record 1: <count> "1.5" is not a whole number from 0 to 1000000000'],
    ['an IP with an octet over 255', record('192.0.2.300', 1), 'record 1: <source_ip> "192.0.2.300" is not an IP address'],
    ['a host name for an IP', record('mail.example.net', 1), 'record 1: <source_ip> "mail.example.net" is not an IP address'],
    ['a result that is not a word', record('192.0.2.1', 1, { dkim: 'pa$$' }), 'record 1: <policy_evaluated>: <dkim> "pa$$" is not a result'],
    ['a header_from that is no domain', record('192.0.2.1', 1, { headerFrom: 'not a domain!' }), 'record 1: <header_from>: "not a domain!" is not a domain name'],
    ['markup where a count goes', record('192.0.2.1', '<x>1</x>'), '<count> is not text'],
    ['the bad second of two records', record('192.0.2.1', 1) + record('2001:db8::zz', 1), 'record 2: <source_ip> "2001:db8::zz" is not an IP address'],
  ])('%s', (_, records, reason) => {
    expect(reasonOf(xml(googleReport({ records })))).toBe(reason)
  })

  test.each([
    ['reversed', { begin: 1716249599, end: 1716163200 }, '<date_range> ends (1716163200) before it begins (1716249599)'],
    ['in 2200', { begin: 7258118400, end: 7258204799 }, '<date_range>: <begin> "7258118400" is not a time from 2000 to 2100 in seconds'],
    ['in milliseconds', { begin: 1716163200000, end: 1716249599000 }, '<date_range>: <begin> "1716163200000" is not a time from 2000 to 2100 in seconds'],
    ['a year long', { begin: 1684627200, end: 1716249599 }, '<date_range> spans 366 days; a report covers at most 31'],
  ])('a date range %s', (_, dates, reason) => {
    expect(reasonOf(xml(googleReport(dates)))).toBe(reason)
  })

  test('more records than the limit', () => {
    const records = Array.from({ length: 11 }, (_, i) => record(`192.0.2.${i + 1}`, 1)).join('')
    expect(reasonOf(parseDmarcXml(Buffer.from(googleReport({ records })), { maxXmlBytes: MB, maxRecords: 10 }))).toBe('the report has 11 records, more than 10')
  })
})

describe('parseDmarcXml accepts', () => {
  test('results in any case, IPv4-mapped IPv6, a prefixed namespace, no XML declaration', () => {
    const text = googleReport({ records: record('::ffff:192.0.2.7', 2, { dkim: 'Pass', spf: 'FAIL', disposition: 'Quarantine' }) })
      .replace('<?xml version="1.0" encoding="UTF-8" ?>\n', '')
      .replace(/<(\/?)feedback>/g, '<$1dmarc:feedback>')
      .replace('<dmarc:feedback>', '<dmarc:feedback xmlns:dmarc="urn:ietf:params:xml:ns:dmarc-2.0">')
    expect(ok(xml(text)).records).toEqual([expect.objectContaining({ sourceIp: '192.0.2.7', dkimAligned: true, spfAligned: false, disposition: 'quarantine' })])
  })

  test('a report with no records, and a record without auth_results', () => {
    expect(ok(xml(googleReport({ records: '' }))).records).toEqual([])
    const bare = '<record><row><source_ip>192.0.2.1</source_ip><count>4</count><policy_evaluated><disposition>none</disposition><dkim>fail</dkim><spf>pass</spf></policy_evaluated></row><identifiers><header_from>sender.example.com</header_from></identifiers></record>'
    expect(ok(xml(googleReport({ records: bare }))).records).toEqual([
      expect.objectContaining({ count: 4, dkimResult: 'none', spfResult: 'none', dkim: [], spf: [], envelopeFrom: null }),
    ])
  })

  test('the Microsoft fixture as plain XML', () => {
    expect(ok(xml(microsoftXml())).records).toHaveLength(2)
  })

  test('entities XML always has (&amp;) are read', () => {
    expect(ok(xml(googleXml().replace('<org_name>google.com</org_name>', '<org_name>Smith &amp; Sons</org_name>'))).orgName).toBe('Smith & Sons')
  })
})
