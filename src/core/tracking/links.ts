import { signToken, verifyToken } from '../../lib/signed.ts'
import { carriesSecret } from './secret-links.ts'

const OPEN = 'open'
const CLICK = 'click'

/** What links in mail are made of: the server's public address and the key that signs them. */
export interface LinkSettings {
  secret: string
  /** The public URL, without a trailing slash. */
  baseUrl: string
}

export interface TrackOptions extends LinkSettings {
  emailId: string
  opens: boolean
  clicks: boolean
  /** Links to leave as they are (the unsubscribe link): given the link's URL, decoded. */
  skip?: (url: string) => boolean
}

/**
 * The HTML of one email with tracking: with `clicks`, each http(s) link of an <a> goes through
 * this server first; with `opens`, a 1×1 image at the end of the body reports the open. Links
 * that are not http(s) (mailto:, tel:, #anchors, relative ones) cannot be followed through a
 * redirect and are left alone; so are links marked `data-no-track`, and links that carry a
 * secret (carriesSecret) unless marked `data-track`.
 */
export function trackHtml(html: string, options: TrackOptions): string {
  let tracked = options.clicks ? trackLinks(html, options) : html
  if (options.opens) tracked = withPixel(tracked, `${options.baseUrl}/t/o/${signToken(options.secret, OPEN, options.emailId)}`)
  return tracked
}

/** The email an open token names, or undefined when the token is not one of ours. */
export const emailOfOpenToken = (secret: string, token: string): string | undefined => verifyToken(secret, OPEN, token)

/** The email and link a click token names, or undefined when the token is not one of ours. */
export function clickOfToken(secret: string, token: string): { emailId: string; url: string } | undefined {
  const payload = verifyToken(secret, CLICK, token)
  if (payload === undefined) return undefined
  const text = Buffer.from(payload, 'base64url').toString('utf8')
  const newline = text.indexOf('\n')
  return newline > 0 ? { emailId: text.slice(0, newline), url: text.slice(newline + 1) } : undefined
}

const clickToken = (secret: string, emailId: string, url: string) =>
  signToken(secret, CLICK, Buffer.from(`${emailId}\n${url}`, 'utf8').toString('base64url'))

// Where an <a> start tag begins (not <abbr>, <area>, ...).
const ANCHOR_START = /<a(?=[\s>\/])/gi
// One attribute of a start tag, its value quoted either way or bare; matched in turn, so text
// inside another attribute's quoted value is never taken for an attribute.
const ATTRIBUTE = /([^\s"'<>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"'][^\s>]*)))?/g

/** Each <a> tag with its link tracked, in one pass over the HTML. */
function trackLinks(html: string, options: TrackOptions): string {
  let out = ''
  let done = 0
  const starts = new RegExp(ANCHOR_START)
  for (let start = starts.exec(html); start; start = starts.exec(html)) {
    const end = tagEnd(html, start.index + 2)
    // A quote that never closes makes the rest of the document that attribute's value.
    if (end < 0) break
    out += html.slice(done, start.index) + trackAnchor(html.slice(start.index, end + 1), options)
    done = starts.lastIndex = end + 1
  }
  return out + html.slice(done)
}

/** Where the tag that goes on at `from` ends (its `>`, quoted values skipped), or -1. */
function tagEnd(html: string, from: number): number {
  for (let i = from; i < html.length; i++) {
    const c = html[i]
    if (c === '>') return i
    if (c === '"' || c === "'") {
      i = html.indexOf(c, i + 1)
      if (i < 0) return -1
    }
  }
  return -1
}

/** The names of a tag's attributes, lower case. */
const attributeNames = (tag: string) => new Set([...tag.slice(2).matchAll(ATTRIBUTE)].map((m) => m[1]!.toLowerCase()))

/** Whether a link stays as written: an opt-out, or a secret the tag does not ask to track. */
function keptAsWritten(url: string, attributes: Set<string>): boolean {
  if (attributes.has('data-no-track')) return true
  return !attributes.has('data-track') && carriesSecret(url)
}

function trackAnchor(tag: string, options: TrackOptions): string {
  const names = attributeNames(tag)
  let seen = false
  const attributes = tag.slice(2).replace(ATTRIBUTE, (attribute, name: string, double?: string, single?: string, bare?: string) => {
    // A browser follows the first href of a tag and ignores any other.
    if (seen || name.toLowerCase() !== 'href') return attribute
    seen = true
    const url = decodeEntities(double ?? single ?? bare ?? '').trim()
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url) || options.skip?.(url) || keptAsWritten(url, names)) return attribute
    const quote = single !== undefined ? "'" : '"'
    return `${name}=${quote}${options.baseUrl}/t/c/${clickToken(options.secret, options.emailId, url)}${quote}`
  })
  return tag.slice(0, 2) + attributes
}

/** The image just before the last </body>, or at the end when there is none. */
function withPixel(html: string, src: string): string {
  const pixel = `<img src="${src}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0" />`
  let end = -1
  for (const match of html.matchAll(/<\/body/gi)) end = match.index
  return end < 0 ? html + pixel : html.slice(0, end) + pixel + html.slice(end)
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }
// Numeric references; named ones with their semicolon; the legacy ones without, unless followed
// by `=` or a letter or digit.
const REFERENCE = /&(?:#(\d+);?|#x([0-9a-f]+);?|(amp|lt|gt|quot|apos);|(amp|lt|gt|quot)(?![=a-z0-9]))/gi

/**
 * Character references in an attribute value, as a browser reads them before following the link:
 * numeric ones, and the named ones a URL may hold. Any other `&name` stays as written, which is
 * also how a browser treats one followed by `=` (`?a=1&copy=2` keeps its `&copy`).
 */
export function decodeEntities(value: string): string {
  return value.replace(REFERENCE, (reference, decimal?: string, hex?: string, named?: string, legacy?: string) => {
    if (named ?? legacy) return NAMED[(named ?? legacy)!.toLowerCase()] ?? reference
    const code = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16)
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\uFFFD'
  })
}
