import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Joiner, Rewriter, Splitter } from '@zone-eu/mailsplit'
import { AppError } from '../../lib/errors.ts'
import type { TrackingAsked } from '../tracking/policy.ts'

/**
 * The relay's per-message tracking switch: `X-Mailstead-Track: opens, clicks`, `opens`, `clicks`
 * or `none`. What it names is tracked and what it leaves out is not; the field never leaves the
 * server (header-fields.ts). Without it, the domain's transactional switches decide.
 */
export const TRACK_FIELD = 'x-mailstead-track'

const WORDS = new Set(['opens', 'clicks', 'none'])

/** What an X-Mailstead-Track value asks for; a 422 for a word it does not know. */
export function trackingAskedBy(value: string | undefined): TrackingAsked {
  if (value === undefined) return {}
  const words = value.toLowerCase().split(/[\s,]+/).filter(Boolean)
  const unknown = words.find((word) => !WORDS.has(word))
  if (unknown !== undefined || words.length === 0) {
    throw new AppError(422, 'VALIDATION_ERROR', `X-Mailstead-Track: "${unknown ?? ''}" is not one of opens, clicks, none (e.g. "X-Mailstead-Track: opens, clicks")`)
  }
  return { trackOpens: words.includes('opens'), trackClicks: words.includes('clicks') }
}

/** Charsets whose bytes read as UTF-8: an HTML part in another one is left as written. */
const UTF8_COMPATIBLE = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii'])

interface HtmlNode {
  contentType: string | false
  charset: string | false
  disposition: string | false
}

const isInlineHtml = (node: HtmlNode) =>
  node.contentType === 'text/html' && node.disposition !== 'attachment' && (node.charset === false || UTF8_COMPATIBLE.has(node.charset.toLowerCase()))

/**
 * A relayed message with each inline HTML part passed through `track`, the rest of the message byte
 * for byte as it was: mailsplit decodes the part's transfer encoding and encodes the new content
 * the same way (7bit and 8bit parts as quoted-printable, so no line grows past the limit).
 */
export async function trackRelayedHtml(raw: Uint8Array, track: (html: string) => string): Promise<Uint8Array> {
  const rewriter = new Rewriter((node: HtmlNode) => isInlineHtml(node))
  rewriter.on('node', (data: { decoder: NodeJS.ReadableStream; encoder: NodeJS.WritableStream }) => {
    rewriteText(data.decoder, data.encoder, track).catch((error) => rewriter.destroy(error))
  })
  const out: Buffer[] = []
  await pipeline(Readable.from([Buffer.from(raw)]), new Splitter(), rewriter, new Joiner(), async (joined: AsyncIterable<Buffer>) => {
    for await (const chunk of joined) out.push(chunk)
  })
  return new Uint8Array(Buffer.concat(out))
}

async function rewriteText(decoder: NodeJS.ReadableStream, encoder: NodeJS.WritableStream, change: (text: string) => string) {
  const chunks: Buffer[] = []
  for await (const chunk of decoder) chunks.push(Buffer.from(chunk as Buffer))
  encoder.end(Buffer.from(change(Buffer.concat(chunks).toString('utf8')), 'utf8'))
}
