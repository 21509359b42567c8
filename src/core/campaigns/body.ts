import { escapeHtml } from '../../lib/html.ts'
import { render } from '../templates/render.ts'
import { withUnsubscribeFooter } from '../tracking/bulk-mail.ts'
import type { CampaignRow } from './campaign.ts'

/** Hidden text that mail clients show beside the subject in the inbox. */
const preheader = (text: string) =>
  `<div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all">${escapeHtml(text)}</div>`

function insertAfterBodyTag(html: string, fragment: string): string {
  const body = /<body\b[^>]*>/i.exec(html)
  return body ? html.slice(0, body.index + body[0].length) + fragment + html.slice(body.index + body[0].length) : fragment + html
}

/**
 * A campaign's bodies for one recipient: placeholders filled from `values` and the recipient's
 * unsubscribe link, the preview text hidden at the top. A body that does not place
 * {{unsubscribeUrl}} itself gets the footer every marketing email gets (withUnsubscribeFooter).
 * The HTML is the campaign's html; its content is the text part (and the only body without html).
 */
export function renderCampaignBody(campaign: Pick<CampaignRow, 'html' | 'content' | 'preview_text'>, values: Record<string, unknown>, unsubscribeUrl: string) {
  const filled = { ...values, unsubscribeUrl }
  const rendered = {
    html: campaign.html === null ? undefined : render(campaign.html, filled, { html: true }),
    text: campaign.html === null && campaign.content !== null ? render(campaign.content, filled, { html: false }) : undefined,
  }
  const { html, text } = withUnsubscribeFooter(rendered, { html: campaign.html, text: campaign.content }, unsubscribeUrl)
  return { html: html !== undefined && campaign.preview_text ? insertAfterBodyTag(html, preheader(campaign.preview_text)) : html, text }
}
