import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { Gunzip, Inflate } from 'fflate'
import { simpleParser, type ParsedMail } from 'mailparser'
import type { DmarcAuthResult, DmarcRecord, DmarcReport } from '../core/dmarc/report.ts'
import { canonicalIp } from '../lib/ip.ts'

/**
 * DMARC aggregate reports (RFC 7489 §7.2, Appendix C): the message a reporter (Google, Microsoft,
 * Yahoo...) sends to the rua address, its zip, gzip or plain XML, and the XML itself. Pure: bytes
 * in, a report or the reason it is refused out. Nothing here trusts what the report says about
 * itself: unpacked sizes are counted while inflating, DOCTYPE and entities are refused before the
 * parser sees them, and every value is checked.
 */

export interface DmarcLimits {
  /** The most the XML may unpack to, in bytes: counted while inflating, never taken from a header. */
  maxXmlBytes: number
  /** The most records one report may hold. */
  maxRecords: number
}

export const DMARC_LIMITS: DmarcLimits = { maxXmlBytes: 10 * 1024 * 1024, maxRecords: 50_000 }

/** The most one record may count: more than any real reporter sees from one address in a day. */
const MAX_COUNT = 1_000_000_000
/** The longest a report may span: reporters send daily, some weekly. */
const MAX_SPAN_SECONDS = 31 * 86_400
/** Report dates outside this range (2000 to 2100) are not real. */
const EARLIEST = 946_684_800
const LATEST = 4_102_444_800
/** Compressed input is fed to the inflater this much at a time: deflate expands at most ~1032×, so one push yields at most ~1 MB. */
const FEED_BYTES = 1024
/** The most entries a report's zip may list. */
const MAX_ZIP_ENTRIES = 64

export type DmarcParse = { ok: true; report: DmarcReport; container: string } | { ok: false; reason: string }

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason })

/** Parses a message that arrived at a rua address: finds the report in it, unpacks and reads it. Never throws. */
export async function parseDmarcMessage(raw: Buffer, limits: DmarcLimits = DMARC_LIMITS): Promise<DmarcParse> {
  let mail: ParsedMail
  try {
    mail = await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true, skipTextLinks: true, skipHtmlToText: true })
  } catch (error) {
    return refuse(`the message could not be parsed: ${error instanceof Error ? error.message : String(error)}`)
  }
  const found = reportPart(mail)
  if (!found) return refuse('the message carries no report: no zip, gzip or XML attachment, and its body is not XML')
  const unpacked = unpackReport(found.data, limits.maxXmlBytes)
  if (!unpacked.ok) return refuse(`${found.label}: ${unpacked.reason}`)
  const parsed = parseDmarcXml(unpacked.xml, limits)
  if (!parsed.ok) return refuse(`${found.label}: ${parsed.reason}`)
  return { ...parsed, container: `${unpacked.format} ${found.label === 'the body' ? 'body' : found.label}` }
}

type Format = 'zip' | 'gzip' | 'xml'

/** What the bytes are, by their first bytes rather than by what the sender labelled them. */
export function formatOf(data: Uint8Array): Format | null {
  // A local file header, or the end of the central directory (an empty zip).
  if (data[0] === 0x50 && data[1] === 0x4b && ((data[2] === 0x03 && data[3] === 0x04) || (data[2] === 0x05 && data[3] === 0x06))) return 'zip'
  if (data[0] === 0x1f && data[1] === 0x8b) return 'gzip'
  let i = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0
  while (i < data.length && i < 4096 && (data[i] === 0x20 || data[i] === 0x09 || data[i] === 0x0a || data[i] === 0x0d)) i++
  return data[i] === 0x3c ? 'xml' : null
}

/** The report in a message: the first zip or gzip attachment, else the first XML one; else the body, when it is XML. */
function reportPart(mail: ParsedMail): { data: Uint8Array; label: string } | undefined {
  const attachment =
    mail.attachments.find((a) => formatOf(a.content) === 'zip' || formatOf(a.content) === 'gzip') ?? mail.attachments.find((a) => formatOf(a.content) === 'xml')
  if (attachment) return { data: attachment.content, label: attachment.filename ? `attachment ${attachment.filename}` : `${attachment.contentType} part` }
  const text = Buffer.from(mail.text ?? '', 'utf8')
  return formatOf(text) === 'xml' ? { data: text, label: 'the body' } : undefined
}

export type Unpacked = { ok: true; xml: Uint8Array; format: Format } | { ok: false; reason: string }

/** The XML of a zip (its first .xml entry), a gzip, or XML as it is; at most `maxBytes`, counted while inflating. */
export function unpackReport(data: Uint8Array, maxBytes: number): Unpacked {
  const format = formatOf(data)
  try {
    if (format === 'zip') return unzipReport(data, maxBytes)
    if (format === 'gzip') {
      const xml = inflateBounded((sink) => new Gunzip(sink), data, maxBytes)
      return typeof xml === 'string' ? refuse(`the gzip ${xml}`) : { ok: true, xml, format }
    }
    if (format === 'xml') return data.length > maxBytes ? refuse(`the XML is larger than ${megabytes(maxBytes)}`) : { ok: true, xml: data, format }
    return refuse('neither zip, gzip nor XML')
  } catch (error) {
    return refuse(`the ${format} is damaged: ${error instanceof Error ? error.message : String(error)}`)
  }
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`

type Sink = (chunk: Uint8Array, final: boolean) => void

/**
 * Inflates `input` a little at a time, counting what comes out: past `maxBytes` it stops at once
 * and answers why (a string) instead of the data. A bomb never gets to allocate its claimed size.
 */
function inflateBounded(make: (sink: Sink) => { push(chunk: Uint8Array, final?: boolean): void }, input: Uint8Array, maxBytes: number): Uint8Array | string {
  const chunks: Uint8Array[] = []
  let size = 0
  let ended = false
  const stream = make((chunk, final) => {
    size += chunk.length
    if (size <= maxBytes) chunks.push(chunk)
    if (final) ended = true
  })
  for (let i = 0; i < input.length; i += FEED_BYTES) {
    stream.push(input.subarray(i, i + FEED_BYTES), i + FEED_BYTES >= input.length)
    if (size > maxBytes) return `unpacks to more than ${megabytes(maxBytes)}; refused as a decompression bomb`
  }
  if (input.length === 0 || !ended) return 'ends before its compressed data does (truncated)'
  return Buffer.concat(chunks)
}

/**
 * A zip's first .xml entry, read from the central directory (RFC 7489 reporters send one entry).
 * The sizes an entry declares are checked, but the limit is enforced on what inflating yields.
 */
function unzipReport(zip: Uint8Array, maxBytes: number): Unpacked {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  const u16 = (at: number) => view.getUint16(at, true)
  const u32 = (at: number) => view.getUint32(at, true)
  // The end of central directory record: within the last 64 KiB (its comment) + 22 bytes.
  let eocd = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65_535); i--) {
    if (u32(i) === 0x06054b50) {
      eocd = i
      break
    }
  }
  if (eocd < 0) return refuse('the zip has no central directory (truncated or not a zip)')
  const entries = u16(eocd + 10)
  let at = u32(eocd + 16)
  if (entries === 0xffff || at === 0xffffffff) return refuse('the zip is a zip64 archive, which no report needs')
  if (entries > MAX_ZIP_ENTRIES) return refuse(`the zip lists ${entries} entries; a report has one`)
  const names: string[] = []
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || u32(at) !== 0x02014b50) return refuse('the zip directory is damaged')
    const flags = u16(at + 8)
    const method = u16(at + 10)
    const compressedSize = u32(at + 20)
    const declaredSize = u32(at + 24)
    const nameLength = u16(at + 28)
    const local = u32(at + 42)
    const name = Buffer.from(zip.subarray(at + 46, at + 46 + nameLength)).toString(flags & 0x800 ? 'utf8' : 'latin1')
    at += 46 + nameLength + u16(at + 30) + u16(at + 32)
    names.push(name)
    if (!/\.xml$/i.test(name)) continue
    if (flags & 0x1) return refuse(`the zip entry ${name} is encrypted`)
    if (method !== 0 && method !== 8) return refuse(`the zip entry ${name} uses compression method ${method}; only deflate and stored are read`)
    if (declaredSize > maxBytes) return refuse(`the zip entry ${name} says it unpacks to ${megabytes(declaredSize)}, more than ${megabytes(maxBytes)}`)
    if (local + 30 > zip.length || u32(local) !== 0x04034b50) return refuse(`the zip entry ${name} is damaged`)
    const start = local + 30 + u16(local + 26) + u16(local + 28)
    if (start + compressedSize > zip.length) return refuse(`the zip entry ${name} is truncated`)
    const data = zip.subarray(start, start + compressedSize)
    if (method === 0) {
      return data.length > maxBytes ? refuse(`the zip entry ${name} is larger than ${megabytes(maxBytes)}`) : { ok: true, xml: data, format: 'zip' }
    }
    const xml = inflateBounded((sink) => new Inflate(sink), data, maxBytes)
    return typeof xml === 'string' ? refuse(`the zip entry ${name} ${xml}`) : { ok: true, xml, format: 'zip' }
  }
  return refuse(names.length === 0 ? 'the zip is empty' : `the zip holds no .xml file (it holds ${names.slice(0, 5).join(', ')})`)
}

const ARRAYS = new Set(['feedback.record', 'feedback.record.auth_results.dkim', 'feedback.record.auth_results.spf'])

const xmlParser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Values stay text, checked below: a report id of 20 digits is not a number.
  parseTagValue: false,
  trimValues: true,
  htmlEntities: false,
  isArray: (_name, jPath) => ARRAYS.has(String(jPath)),
})

/** Reads the XML of an aggregate report and checks every value it uses. Never throws. */
export function parseDmarcXml(bytes: Uint8Array, limits: DmarcLimits = DMARC_LIMITS): { ok: true; report: DmarcReport } | { ok: false; reason: string } {
  if (bytes.length > limits.maxXmlBytes) return refuse(`the XML is larger than ${megabytes(limits.maxXmlBytes)}`)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return refuse('the XML is not UTF-8')
  }
  // Entities are never expanded: a report has no use for a DTD, and a DTD is how billion-laughs bombs start.
  if (/<!DOCTYPE/i.test(text)) return refuse('the XML has a DOCTYPE; reports have none and it is refused unread (entity expansion)')
  if (/<!ENTITY/i.test(text)) return refuse('the XML declares entities; they are refused unexpanded')
  const valid = XMLValidator.validate(text)
  if (valid !== true) return refuse(`the XML is malformed: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`)
  let document: Record<string, unknown>
  try {
    document = xmlParser.parse(text) as Record<string, unknown>
  } catch (error) {
    return refuse(`the XML is malformed: ${error instanceof Error ? error.message : String(error)}`)
  }
  try {
    return { ok: true, report: reportOf(document, limits) }
  } catch (error) {
    if (error instanceof BadReport) return refuse(error.message)
    throw error
  }
}

class BadReport extends Error {}

type Node = Record<string, unknown>

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value)

function child(node: Node, name: string, where: string): Node {
  const value = node[name]
  if (!isNode(value)) throw new BadReport(`${where} has no <${name}>`)
  return value
}

/** Text content; a node holding only text comes back from the parser as that text. */
function textOf(node: Node, name: string): string | null {
  const value = node[name]
  if (value === undefined || value === null || value === '') return null
  if (typeof value === 'string') return value.trim() || null
  if (isNode(value) && typeof value['#text'] === 'string') return value['#text'].trim() || null
  throw new BadReport(`<${name}> is not text`)
}

function required(node: Node, name: string, where: string, max = 255): string {
  const value = textOf(node, name)
  if (value === null) throw new BadReport(`${where} has no <${name}>`)
  if (value.length > max) throw new BadReport(`${where}: <${name}> is longer than ${max} characters`)
  return value
}

function optional(node: Node, name: string, max = 255): string | null {
  const value = textOf(node, name)
  return value === null ? null : value.slice(0, max)
}

/** A short lower-case keyword (pass, fail, none, quarantine...): anything else is not a result. */
function keyword(node: Node, name: string, where: string, fallback?: string): string {
  const value = textOf(node, name)?.toLowerCase() ?? fallback
  if (value === undefined) throw new BadReport(`${where} has no <${name}>`)
  if (!/^[a-z_-]{1,20}$/.test(value)) throw new BadReport(`${where}: <${name}> ${JSON.stringify(value.slice(0, 40))} is not a result`)
  return value
}

function domainName(value: string | null, where: string): string {
  const name = value?.toLowerCase().replace(/\.$/, '') ?? ''
  if (!/^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/.test(name)) {
    throw new BadReport(`${where}: ${JSON.stringify((value ?? '').slice(0, 80))} is not a domain name`)
  }
  return name
}

function seconds(node: Node, name: string, where: string): number {
  const value = required(node, name, where, 20)
  if (!/^\d{1,12}$/.test(value) || Number(value) < EARLIEST || Number(value) > LATEST) {
    throw new BadReport(`${where}: <${name}> ${JSON.stringify(value)} is not a time from 2000 to 2100 in seconds`)
  }
  return Number(value)
}

function reportOf(document: Node, limits: DmarcLimits): DmarcReport {
  const root = Object.keys(document).find((key) => isNode(document[key]))
  if (root !== 'feedback') {
    throw new BadReport(root ? `not a DMARC aggregate report: the root element is <${root}>, not <feedback>` : 'not a DMARC aggregate report: no <feedback> element')
  }
  const feedback = document.feedback as Node
  const metadata = child(feedback, 'report_metadata', '<feedback>')
  const range = child(metadata, 'date_range', '<report_metadata>')
  const begin = seconds(range, 'begin', '<date_range>')
  const end = seconds(range, 'end', '<date_range>')
  if (end < begin) throw new BadReport(`<date_range> ends (${end}) before it begins (${begin})`)
  if (end - begin > MAX_SPAN_SECONDS) throw new BadReport(`<date_range> spans ${Math.round((end - begin) / 86_400)} days; a report covers at most 31`)
  const published = child(feedback, 'policy_published', '<feedback>')
  const rawRecords = feedback.record ?? []
  if (!Array.isArray(rawRecords)) throw new BadReport('<record> is not a list')
  if (rawRecords.length > limits.maxRecords) throw new BadReport(`the report has ${rawRecords.length} records, more than ${limits.maxRecords}`)
  const domain = domainName(textOf(published, 'domain'), '<policy_published> <domain>')
  return {
    orgName: required(metadata, 'org_name', '<report_metadata>'),
    email: optional(metadata, 'email'),
    reportId: required(metadata, 'report_id', '<report_metadata>'),
    begin,
    end,
    domain,
    policy: {
      p: optional(published, 'p', 20),
      sp: optional(published, 'sp', 20),
      adkim: optional(published, 'adkim', 20),
      aspf: optional(published, 'aspf', 20),
      pct: optional(published, 'pct', 20),
    },
    records: rawRecords.map((record, i) => recordOf(record, `record ${i + 1}`, domain)),
  }
}

function recordOf(record: unknown, where: string, policyDomain: string): DmarcRecord {
  if (!isNode(record)) throw new BadReport(`${where} is empty`)
  const row = child(record, 'row', where)
  const rawIp = required(row, 'source_ip', where, 64)
  const sourceIp = canonicalIp(rawIp)
  if (!sourceIp) throw new BadReport(`${where}: <source_ip> ${JSON.stringify(rawIp)} is not an IP address`)
  const rawCount = required(row, 'count', where, 20)
  if (!/^\d{1,10}$/.test(rawCount) || Number(rawCount) > MAX_COUNT) {
    throw new BadReport(`${where}: <count> ${JSON.stringify(rawCount)} is not a whole number from 0 to ${MAX_COUNT}`)
  }
  const evaluated = child(row, 'policy_evaluated', where)
  const disposition = keyword(evaluated, 'disposition', `${where}: <policy_evaluated>`)
  const dkimAligned = keyword(evaluated, 'dkim', `${where}: <policy_evaluated>`, 'fail') === 'pass'
  const spfAligned = keyword(evaluated, 'spf', `${where}: <policy_evaluated>`, 'fail') === 'pass'
  const identifiers = isNode(record.identifiers) ? record.identifiers : {}
  const auth = isNode(record.auth_results) ? record.auth_results : {}
  const results = (name: 'dkim' | 'spf') => {
    const list = auth[name] ?? []
    if (!Array.isArray(list)) throw new BadReport(`${where}: <auth_results> <${name}> is not a list`)
    return list.slice(0, 20).map((entry, j): DmarcAuthResult => {
      if (!isNode(entry)) throw new BadReport(`${where}: <auth_results> <${name}> ${j + 1} is empty`)
      const at = `${where}: <auth_results> <${name}>`
      const result = { domain: optional(entry, 'domain', 253)?.toLowerCase() ?? '', result: keyword(entry, 'result', at) }
      const extra = name === 'dkim' ? optional(entry, 'selector', 63) : optional(entry, 'scope', 20)
      return extra === null ? result : { ...result, [name === 'dkim' ? 'selector' : 'scope']: extra }
    })
  }
  const dkim = results('dkim')
  const spf = results('spf')
  const headerFrom = textOf(identifiers, 'header_from')
  return {
    sourceIp,
    count: Number(rawCount),
    disposition,
    dkimAligned,
    spfAligned,
    dkimResult: dkim.some((r) => r.result === 'pass') ? 'pass' : (dkim[0]?.result ?? 'none'),
    spfResult: (spf.find((r) => r.scope === 'mfrom') ?? spf[0])?.result ?? 'none',
    headerFrom: headerFrom === null ? policyDomain : domainName(headerFrom, `${where}: <header_from>`),
    envelopeFrom: optional(identifiers, 'envelope_from', 253)?.toLowerCase() ?? null,
    dkim,
    spf,
  }
}
