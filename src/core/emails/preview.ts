import type { Db } from '../../db/schema.ts'
import { AppError, notFound } from '../../lib/errors.ts'
import { findEmail, rawMessageOf } from './emails.repository.ts'

/**
 * An email's HTML as a document the console frames to show it. The HTML is the sender's, so it is
 * treated as hostile: the document's policy puts it in a sandbox of its own (an opaque origin,
 * never the console's, even when opened outside the frame), runs no script, submits no form,
 * loads no font, frame or stylesheet from elsewhere, and loads remote images (which tell the
 * sender the email was read) only when asked. Links open in a new tab, outside the sandbox.
 */

/** The Content-Security-Policy of the preview: images from elsewhere only with `remoteImages`. */
export function previewPolicy(remoteImages: boolean): string {
  return [
    'sandbox allow-popups allow-popups-to-escape-sandbox',
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `img-src data:${remoteImages ? ' http: https:' : ''}`,
    'font-src data:',
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join('; ')
}

/** The headers of the preview's answer. */
export const previewHeaders = (remoteImages: boolean) => ({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': previewPolicy(remoteImages),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'private, no-store',
})

const DOCTYPE = /^\s*<!doctype[^>]*>/i
/** What goes before the email's own markup: its characters are UTF-8, and links open in a new tab. */
const PREAMBLE = '<meta charset="utf-8"><base target="_blank">'

/** The email's HTML with the preamble, after its doctype if it has one (so that it keeps its rendering mode). */
export function previewDocument(html: string): string {
  const doctype = DOCTYPE.exec(html)?.[0]
  return doctype === undefined ? `${PREAMBLE}${html}` : `${doctype}${PREAMBLE}${html.slice(doctype.length)}`
}

/**
 * The HTML of one of the project's emails: 404 when there is no such email or it has no HTML
 * part, 410 when retention deleted its bodies.
 */
export async function getPreviewHtml(db: Db, projectId: number, id: string): Promise<string> {
  const row = await findEmail(db, projectId, id)
  if (!row) throw notFound('Email')
  if (row.html !== null) return row.html
  if (!(await rawMessageOf(db, id))) throw new AppError(410, 'GONE', "The email's message was deleted by retention (MAILSTEAD_RETENTION_DAYS)")
  throw new AppError(404, 'NOT_FOUND', 'This email has no HTML part', { suggestion: 'Its text part is in GET /api/v1/emails/{emailId}.' })
}
