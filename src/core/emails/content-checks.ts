import { decodeEntities } from '../tracking/links.ts'
import { check, type Check } from './receiver-checks.ts'

/** The bodies a receiver reads, and where this server's tracking links and images point. */
export interface Bodies {
  html: string | null
  text: string | null
  /** The public base URL that open and click tracking go through. */
  trackingBase: string
  /** Where a link rewritten for click tracking leads; undefined for one that is not this server's. */
  destinationOf?: (url: string) => string | undefined
}

/** The http(s) targets of the HTML's links, entities decoded, each once, in order. */
export function linksOf(html: string): string[] {
  const links = [...html.matchAll(/<a\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)].map((m) => decodeEntities(m[1] ?? m[2] ?? m[3] ?? '').trim())
  return [...new Set(links.filter((url) => /^https?:\/\//i.test(url)))]
}

const isClickLink = (url: string, base: string) => url.startsWith(`${base}/t/c/`)

/**
 * A text part for receivers and readers that do not show HTML, naming the same links: mail whose
 * parts disagree reads as a bait-and-switch to spam filters. A link rewritten for click tracking
 * counts as where it leads.
 */
export function textPartCheck(bodies: Bodies): Check {
  const [id, name] = ['text-part', 'Text part']
  if (bodies.text === null || bodies.text.trim() === '') {
    return check(id, name, bodies.html === null ? 'fail' : 'warn', bodies.html === null ? 'The message has no body' : 'HTML only: no text/plain part')
  }
  if (bodies.html === null) return check(id, name, 'pass', 'Plain text only')
  const links = linksOf(bodies.html).map((url) => (isClickLink(url, bodies.trackingBase) ? bodies.destinationOf?.(url) : url)).filter((url) => url !== undefined)
  const missing = links.filter((url) => !bodies.text!.includes(url))
  if (missing.length > 0) return check(id, name, 'warn', `The text part does not name ${missing.length} of the HTML's ${links.length} links: ${missing.slice(0, 3).join(', ')}`)
  return check(id, name, 'pass', links.length === 0 ? 'Present; the HTML has no links' : `Present, naming all ${links.length} of the HTML's links`)
}

const isPixel = (tag: string, base: string) =>
  (/\swidth\s*=\s*["']?1(px)?["'\s/>]/i.test(tag) && /\sheight\s*=\s*["']?1(px)?["'\s/>]/i.test(tag)) || tag.includes(`${base}/t/o/`)

/**
 * Open pixels and links rewritten through this server: expected of marketing mail that turned
 * them on, but transactional mail (receipts, resets, codes) must carry neither.
 */
export function trackingCheck(bodies: Bodies, bulk: boolean): Check {
  const [id, name] = ['tracking', 'Tracking']
  const html = bodies.html ?? ''
  const pixels = [...html.matchAll(/<img\b[^>]*>/gi)].filter((m) => isPixel(m[0], bodies.trackingBase)).length
  const rewritten = linksOf(html).filter((url) => isClickLink(url, bodies.trackingBase)).length
  const found = [...(pixels > 0 ? [`${pixels} tracking pixel${pixels > 1 ? 's' : ''}`] : []), ...(rewritten > 0 ? [`${rewritten} rewritten link${rewritten > 1 ? 's' : ''}`] : [])]
  if (found.length === 0) return check(id, name, 'pass', 'No tracking pixel, no rewritten links')
  if (bulk) return check(id, name, 'info', `Bulk mail with ${found.join(' and ')}`)
  return check(id, name, 'fail', `Transactional mail with ${found.join(' and ')}: turn tracking off for it`)
}
