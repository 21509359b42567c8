import type { TemplateTable } from '../../db/schema.ts'
import { bulkMarks, type BulkMarks, type FeedbackSource, type MailStream } from '../tracking/bulk-mail.ts'
import { trackHtml, type LinkSettings } from '../tracking/links.ts'
import { trackingFor, type DomainTracking, type TrackingAsked } from '../tracking/policy.ts'

/*
 * What a send's stream (marketing or transactional) makes of it: kept apart from send.ts, which
 * checks, renders and builds, so that each can change without the other.
 */

interface SendingDomain extends DomainTracking {
  /** The host of its return paths and unsubscribe mailto: (SenderDomain's). */
  mailDomain: string
}

/** What a send is: as the request says (a workflow's step), else marketing with a MARKETING template, else transactional. */
export const streamOf = (request: { stream?: MailStream }, template: Pick<TemplateTable, 'type'> | undefined): MailStream =>
  request.stream ?? (template?.type === 'MARKETING' ? 'marketing' : 'transactional')

/**
 * The bulk marks of a marketing send (bulk-mail.ts); none for transactional mail, or without link
 * settings to make the unsubscribe link from. Feedback-ID names the request's source, else the
 * template sent through the API.
 */
export function bulkMarksOf(
  send: { emailId: string; projectId: number; stream: MailStream; feedback?: FeedbackSource; template?: Pick<TemplateTable, 'id'> },
  domain: SendingDomain,
  links: LinkSettings | undefined,
): BulkMarks | undefined {
  if (send.stream !== 'marketing' || !links) return undefined
  const feedback = send.feedback ?? { campaign: send.template?.id ?? 'send', project: send.projectId, stream: 'send' }
  return bulkMarks({ ...links, emailId: send.emailId, mailDomain: domain.mailDomain, feedback })
}

/** The HTML as the message carries it: tracked as the request asks or the domain's switches for its stream say; the unsubscribe link never. */
export function trackedHtml(
  html: string | undefined,
  send: { emailId: string; stream: MailStream; asked: TrackingAsked; bulk?: BulkMarks },
  domain: DomainTracking,
  links: LinkSettings | undefined,
): string | undefined {
  if (!links || html === undefined) return html
  const unsubscribeUrl = send.bulk?.unsubscribe.url
  return trackHtml(html, { ...links, emailId: send.emailId, ...trackingFor(domain, send.stream, send.asked, html), skip: (url) => url === unsubscribeUrl })
}
