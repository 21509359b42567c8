import { escapeHtml } from '../../lib/html.ts'
import type { LinkSettings } from './links.ts'
import { unsubscribeLinks, type UnsubscribeLinks } from './unsubscribe-links.ts'

/*
 * The one place that makes mail bulk mail, as Gmail's and Yahoo's 2024 sender rules ask: every
 * marketing email (a campaign's, a workflow's, a send with a MARKETING template) gets its one-click
 * unsubscribe headers (RFC 2369, RFC 8058), a link in its body, and a Feedback-ID for complaint
 * reports. Transactional mail gets none of them.
 */

/** What an email is to its recipient: marketing (bulk) mail, or one it asked for. */
export type MailStream = 'marketing' | 'transactional'

/** Where a marketing email comes from: Feedback-ID's fields, none of them personal. */
export interface FeedbackSource {
  /** The campaign's, workflow's or template's id. */
  campaign: string
  project: number
  /** The path the mail took. */
  stream: 'campaign' | 'workflow' | 'send'
}

/** Feedback-ID's last field (Gmail's SenderId): the same for every stream, so reports add up. */
export const FEEDBACK_SENDER_ID = 'mailstead'

/** `campaign:project:stream:sender`, each field without the colons that separate them. */
export const feedbackId = (source: FeedbackSource) =>
  [source.campaign, String(source.project), source.stream, FEEDBACK_SENDER_ID].map((field) => field.replaceAll(':', '')).join(':')

export interface BulkMarks {
  unsubscribe: UnsubscribeLinks
  /** List-Unsubscribe, List-Unsubscribe-Post, Precedence and Feedback-ID. */
  headers: Record<string, string>
}

/**
 * The headers and links of one marketing email. `mailDomain` is the sending domain's return-path
 * host, whose MX takes the unsubscribe mail.
 */
export function bulkMarks(options: LinkSettings & { emailId: string; mailDomain: string; feedback: FeedbackSource }): BulkMarks {
  const unsubscribe = unsubscribeLinks(options)
  return { unsubscribe, headers: { ...unsubscribe.headers, Precedence: 'bulk', 'Feedback-ID': feedbackId(options.feedback) } }
}

/** A message's own headers with the bulk ones over them: a same-named header of the caller's gives way, whatever its case. */
export function withBulkHeaders(headers: Record<string, string>, bulk: Record<string, string>): Record<string, string> {
  const ours = new Set(Object.keys(bulk).map((name) => name.toLowerCase()))
  return { ...Object.fromEntries(Object.entries(headers).filter(([name]) => !ours.has(name.toLowerCase()))), ...bulk }
}

const MENTIONS_UNSUBSCRIBE = /\{\{\s*unsubscribeUrl\b/

/** Whether a body as written places the link itself, with {{unsubscribeUrl}}. */
export const placesUnsubscribeLink = (source: string | null | undefined) => source != null && MENTIONS_UNSUBSCRIBE.test(source)

const htmlFooter = (url: string) =>
  `<p style="margin-top:32px;font-size:12px;color:#6b7280;text-align:center"><a href="${escapeHtml(url)}" style="color:#6b7280">Unsubscribe</a></p>`

function insertBeforeBodyEnd(html: string, fragment: string): string {
  const end = html.search(/<\/body\s*>/i)
  return end < 0 ? html + fragment : html.slice(0, end) + fragment + html.slice(end)
}

/**
 * Rendered bodies with an unsubscribe footer added to each one whose source (as written, before
 * placeholders) does not place {{unsubscribeUrl}} itself: a line before </body>, or after the text.
 */
export function withUnsubscribeFooter(
  bodies: { html?: string; text?: string },
  sources: { html?: string | null; text?: string | null },
  url: string,
): { html?: string; text?: string } {
  const html = bodies.html !== undefined && !placesUnsubscribeLink(sources.html) ? insertBeforeBodyEnd(bodies.html, htmlFooter(url)) : bodies.html
  const text = bodies.text !== undefined && !placesUnsubscribeLink(sources.text) ? `${bodies.text}\n\n--\nUnsubscribe: ${url}\n` : bodies.text
  return { html, text }
}
