import { escapeHtml } from '../../lib/html.ts'
import { render } from '../templates/render.ts'
import type { CampaignRow } from './campaign.ts'

const MENTIONS_UNSUBSCRIBE = /\{\{\s*unsubscribeUrl\b/

/** Hidden text that mail clients show beside the subject in the inbox. */
const preheader = (text: string) =>
  `<div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all">${escapeHtml(text)}</div>`

const htmlFooter = (url: string) =>
  `<p style="margin-top:32px;font-size:12px;color:#6b7280;text-align:center"><a href="${escapeHtml(url)}" style="color:#6b7280">Unsubscribe</a></p>`

function insertAfterBodyTag(html: string, fragment: string): string {
  const body = /<body\b[^>]*>/i.exec(html)
  return body ? html.slice(0, body.index + body[0].length) + fragment + html.slice(body.index + body[0].length) : fragment + html
}

function insertBeforeBodyEnd(html: string, fragment: string): string {
  const end = html.search(/<\/body\s*>/i)
  return end < 0 ? html + fragment : html.slice(0, end) + fragment + html.slice(end)
}

/**
 * A campaign's bodies for one recipient: placeholders filled from `values` and the recipient's
 * unsubscribe link, the preview text hidden at the top. A body that does not place
 * {{unsubscribeUrl}} itself gets a one-line footer with the link: every campaign email carries one.
 * The HTML is the campaign's html; its content is the text part (and the only body without html).
 */
export function renderCampaignBody(campaign: Pick<CampaignRow, 'html' | 'content' | 'preview_text'>, values: Record<string, unknown>, unsubscribeUrl: string) {
  const filled = { ...values, unsubscribeUrl }
  let html = campaign.html === null ? undefined : render(campaign.html, filled, { html: true })
  let text = campaign.html === null && campaign.content !== null ? render(campaign.content, filled, { html: false }) : undefined
  if (html !== undefined && !MENTIONS_UNSUBSCRIBE.test(campaign.html!)) html = insertBeforeBodyEnd(html, htmlFooter(unsubscribeUrl))
  if (text !== undefined && !MENTIONS_UNSUBSCRIBE.test(campaign.content!)) text = `${text}\n\n--\nUnsubscribe: ${unsubscribeUrl}\n`
  if (html !== undefined && campaign.preview_text) html = insertAfterBodyTag(html, preheader(campaign.preview_text))
  return { html, text }
}
