import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { constants, deflateRawSync } from 'node:zlib'
import { gzipSync, zipSync } from 'fflate'

export const DMARC_FIXTURES = join(import.meta.dir, '..', 'fixtures', 'dmarc')
export const GOOGLE_XML_NAME = 'google.com!sender.example.com!1716163200!1716249599.xml'
export const MICROSOFT_XML_NAME = 'enterprise.protection.outlook.com!sender.example.com!1716163200!1716249600.xml'

export const dmarcFixture = (name: string) => readFileSync(join(DMARC_FIXTURES, name))
export const googleXml = () => dmarcFixture(GOOGLE_XML_NAME).toString('utf8')
export const microsoftXml = () => dmarcFixture(MICROSOFT_XML_NAME).toString('utf8')

export const zipOf = (entries: Record<string, string | Uint8Array>) =>
  zipSync(Object.fromEntries(Object.entries(entries).map(([name, data]) => [name, typeof data === 'string' ? Buffer.from(data) : data])))

export const gzipOf = (data: string | Uint8Array) => gzipSync(typeof data === 'string' ? Buffer.from(data) : data)

/**
 * Raw deflate of `size` zero bytes (whole megabytes), made fast: one megabyte deflated with a sync
 * flush (byte-aligned, not final), repeated, then an empty final block.
 */
function deflatedZeros(size: number): Uint8Array {
  const megabyte = deflateRawSync(Buffer.alloc(1 << 20), { level: 9, finishFlush: constants.Z_SYNC_FLUSH })
  return Buffer.concat([...Array.from({ length: Math.ceil(size / (1 << 20)) }, () => megabyte), Buffer.from([0x03, 0x00])])
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/**
 * A zip whose one entry (`report.xml`) inflates to `size` zero bytes while its headers claim
 * `claimedSize`: the bomb that lies about itself. (The CRC is of nothing: it is never reached.)
 */
export function zipBomb(size: number, claimedSize = size, name = 'report.xml'): Uint8Array {
  const data = deflatedZeros(size)
  const fileName = Buffer.from(name)
  const local = Buffer.alloc(30)
  local.writeUInt32LE(0x04034b50, 0)
  local.writeUInt16LE(20, 4)
  local.writeUInt16LE(8, 8)
  local.writeUInt32LE(crcTable[0]!, 14)
  local.writeUInt32LE(data.length, 18)
  local.writeUInt32LE(claimedSize, 22)
  local.writeUInt16LE(fileName.length, 26)
  const central = Buffer.alloc(46)
  central.writeUInt32LE(0x02014b50, 0)
  central.writeUInt16LE(20, 4)
  central.writeUInt16LE(20, 6)
  central.writeUInt16LE(8, 10)
  central.writeUInt32LE(data.length, 20)
  central.writeUInt32LE(claimedSize, 24)
  central.writeUInt16LE(fileName.length, 28)
  central.writeUInt32LE(0, 42)
  const centralAt = local.length + fileName.length + data.length
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(1, 8)
  end.writeUInt16LE(1, 10)
  end.writeUInt32LE(central.length + fileName.length, 12)
  end.writeUInt32LE(centralAt, 16)
  return Buffer.concat([local, fileName, data, central, fileName, end])
}

/** A gzip of `size` zero bytes. */
export function gzipBomb(size: number): Uint8Array {
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255])
  const trailer = Buffer.alloc(8)
  trailer.writeUInt32LE(size >>> 0, 4)
  return Buffer.concat([header, deflatedZeros(size), trailer])
}

/** The classic billion laughs: ten levels of ten entities each. */
export const billionLaughs = () =>
  `<?xml version="1.0"?>\n<!DOCTYPE feedback [\n <!ENTITY lol "lol">\n${Array.from(
    { length: 9 },
    (_, i) => ` <!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
  ).join('\n')}\n]>\n<feedback><report_metadata><org_name>&lol9;</org_name></report_metadata></feedback>\n`

export interface Attachment {
  name: string
  contentType: string
  data: Uint8Array
}

/**
 * A report message as reporters send it: a short text part and the report attached (base64), or,
 * with `body`, the XML as the message's body.
 */
export function reportMessage(options: { to: string; from?: string; subject?: string; attachment?: Attachment; body?: string }): string {
  const from = options.from ?? 'noreply-dmarc-support@google.com'
  const head = [
    `From: ${from}`,
    `To: ${options.to}`,
    `Subject: ${options.subject ?? 'Report domain: sender.example.com Submitter: google.com'}`,
    `Message-ID: <${crypto.randomUUID()}@reporter.example>`,
    'Date: Tue, 21 May 2024 07:12:05 +0000',
    'MIME-Version: 1.0',
  ]
  if (options.body !== undefined) return [...head, 'Content-Type: text/xml; charset=UTF-8', '', options.body].join('\r\n')
  const attachment = options.attachment!
  const boundary = '000000000000b3c8a50618f0a1d2'
  const base64 = Buffer.from(attachment.data).toString('base64').replace(/.{76}/g, '$&\r\n')
  return [
    ...head,
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset="UTF-8"',
    '',
    'This is an aggregate report.',
    '',
    `--${boundary}`,
    `Content-Type: ${attachment.contentType}; name="${attachment.name}"`,
    `Content-Disposition: attachment; filename="${attachment.name}"`,
    'Content-Transfer-Encoding: base64',
    '',
    base64,
    `--${boundary}--`,
    '',
  ].join('\r\n')
}

/** A report as Google sends it: a zip attachment, application/zip. */
export const googleStyle = (to: string, xml: string, name = GOOGLE_XML_NAME) =>
  reportMessage({ to, attachment: { name: name.replace(/\.xml$/, '.zip'), contentType: 'application/zip', data: zipOf({ [name]: xml }) } })

/** A report as Microsoft sends it: a gzip attachment, application/gzip. */
export const microsoftStyle = (to: string, xml: string, name = MICROSOFT_XML_NAME) =>
  reportMessage({
    to,
    from: 'DMARC Aggregate Report <dmarcreport@microsoft.com>',
    subject: 'Report Domain: sender.example.com Submitter: enterprise.protection.outlook.com',
    attachment: { name: `${name}.gz`, contentType: 'application/gzip', data: gzipOf(xml) },
  })

/** The Google fixture's XML with its report id, domain or records changed. */
export function googleReport(changes: { reportId?: string; domain?: string; records?: string; begin?: number; end?: number } = {}): string {
  let xml = googleXml()
  if (changes.reportId) xml = xml.replace('<report_id>11453472036582476734</report_id>', `<report_id>${changes.reportId}</report_id>`)
  if (changes.domain) xml = xml.replace('<domain>sender.example.com</domain>', `<domain>${changes.domain}</domain>`)
  if (changes.begin) xml = xml.replace('<begin>1716163200</begin>', `<begin>${changes.begin}</begin>`)
  if (changes.end) xml = xml.replace('<end>1716249599</end>', `<end>${changes.end}</end>`)
  if (changes.records !== undefined) xml = xml.replace(/<record>[\s\S]*<\/record>/, () => changes.records!)
  return xml
}

/** One <record> of a report. */
export const record = (ip: string, count: number | string, options: { dkim?: string; spf?: string; disposition?: string; headerFrom?: string } = {}) => `<record>
    <row>
      <source_ip>${ip}</source_ip>
      <count>${count}</count>
      <policy_evaluated><disposition>${options.disposition ?? 'none'}</disposition><dkim>${options.dkim ?? 'pass'}</dkim><spf>${options.spf ?? 'pass'}</spf></policy_evaluated>
    </row>
    <identifiers><header_from>${options.headerFrom ?? 'sender.example.com'}</header_from></identifiers>
    <auth_results><dkim><domain>sender.example.com</domain><result>${options.dkim ?? 'pass'}</result></dkim><spf><domain>mst.sender.example.com</domain><result>${options.spf ?? 'pass'}</result></spf></auth_results>
  </record>`
