import { simpleParser, type ParsedMail, type SimpleParserOptions } from 'mailparser'
import { parseFeedbackReport } from './arf.ts'
import { messageIdOf, parseDeliveryStatus, type RecipientStatus } from './dsn.ts'
import { noOriginal, originalOf, type OriginalMessage } from './original.ts'
import { looksLikeBounce, quotedAddresses, splitBounceText } from './plain-bounce.ts'

export type { OriginalMessage } from './original.ts'
export type { RecipientStatus } from './dsn.ts'

export type InboundReport =
  /** RFC 3464: multipart/report; report-type=delivery-status. */
  | { kind: 'dsn'; reportingMta: string | null; recipients: RecipientStatus[]; original: OriginalMessage }
  /** RFC 5965: multipart/report; report-type=feedback-report. */
  | { kind: 'arf'; feedbackType: string; userAgent: string | null; originalRcptTo: string | null; reportingMta: string | null; original: OriginalMessage }
  /**
   * A bounce that is not RFC 3464 (plain text from older servers): its notice, for the reply
   * classifier, and the addresses the notice quotes (who it says it is about).
   */
  | { kind: 'plain-bounce'; text: string; quoted: string[]; original: OriginalMessage }
  /** Not a report this server understands (an ordinary message, a DSN without a delivery-status part, ...). */
  | { kind: 'other'; reason: string }

/**
 * mailparser folds message/delivery-status into the text unless told to keep it as a part, and
 * opens a message/rfc822 marked inline (as RFC 5965 reports do) into the text unless
 * `ignoreEmbedded` (passed through to its splitter; not in its types) keeps it a part too.
 */
const PARSE_OPTIONS: SimpleParserOptions & { ignoreEmbedded: boolean } = {
  keepDeliveryStatus: true,
  ignoreEmbedded: true,
  skipTextToHtml: true,
  skipImageLinks: true,
  skipTextLinks: true,
}

const DSN_PARTS = ['message/delivery-status', 'message/global-delivery-status']
const ARF_PARTS = ['message/feedback-report']
const RETURNED_PARTS = ['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers']

/** Parses a raw inbound message (what arrived in DATA) as a report. Never throws: garbage gives {kind:'other'}. */
export async function parseReport(raw: Buffer): Promise<InboundReport> {
  try {
    return await reportOf(await simpleParser(raw, PARSE_OPTIONS))
  } catch (error) {
    return { kind: 'other', reason: `the message could not be parsed: ${error instanceof Error ? error.message : String(error)}` }
  }
}

async function reportOf(mail: ParsedMail): Promise<InboundReport> {
  const type = reportType(mail)
  if (type === 'delivery-status' || type === 'global-delivery-status') return dsnOf(mail)
  if (type === 'feedback-report') return arfOf(mail)
  if (type) return { kind: 'other', reason: `a multipart/report of report-type ${type}, which this server does not act on` }
  if (looksLikeBounce({ from: mail.from?.value[0]?.address, subject: mail.subject, text: mail.text })) return plainBounceOf(mail)
  return { kind: 'other', reason: 'neither a multipart/report nor a bounce' }
}

/**
 * The report-type of a multipart/report; for other messages, the type their parts show (some
 * servers send a delivery-status part inside multipart/mixed); null for anything else.
 */
function reportType(mail: ParsedMail): string | null {
  const header = mail.headers.get('content-type')
  const structured = typeof header === 'object' && header !== null && 'params' in header ? header : null
  const declared = structured?.value.toLowerCase() === 'multipart/report' ? structured.params['report-type']?.toLowerCase() : undefined
  if (declared) return declared
  if (part(mail, DSN_PARTS)) return 'delivery-status'
  if (part(mail, ARF_PARTS)) return 'feedback-report'
  return null
}

const part = (mail: ParsedMail, types: string[]) => mail.attachments.find((attachment) => types.includes(attachment.contentType.toLowerCase()))

async function dsnOf(mail: ParsedMail): Promise<InboundReport> {
  const statusPart = part(mail, DSN_PARTS)
  if (!statusPart) return { kind: 'other', reason: 'a delivery-status report without a message/delivery-status part' }
  const status = parseDeliveryStatus(statusPart.content.toString('utf8'))
  if (status.recipients.length === 0) return { kind: 'other', reason: 'a delivery-status report that names no recipient' }
  const original = await returnedOriginal(mail)
  return {
    kind: 'dsn',
    reportingMta: status.reportingMta,
    recipients: status.recipients,
    original: {
      messageId: original.messageId ?? status.originalMessageId ?? messageIdOf(mail.inReplyTo),
      returnPath: original.returnPath ?? status.envelopeSender,
      to: original.to,
      fromDomain: original.fromDomain,
    },
  }
}

async function arfOf(mail: ParsedMail): Promise<InboundReport> {
  const feedbackPart = part(mail, ARF_PARTS)
  if (!feedbackPart) return { kind: 'other', reason: 'a feedback report without a message/feedback-report part' }
  const feedback = parseFeedbackReport(feedbackPart.content.toString('utf8'))
  const original = await returnedOriginal(mail)
  return {
    kind: 'arf',
    feedbackType: feedback.feedbackType,
    userAgent: feedback.userAgent,
    originalRcptTo: feedback.originalRcptTo,
    reportingMta: feedback.reportingMta,
    original: { ...original, returnPath: original.returnPath ?? feedback.originalMailFrom },
  }
}

async function plainBounceOf(mail: ParsedMail): Promise<InboundReport> {
  const { notice, copy } = splitBounceText(mail.text ?? '')
  if (notice === '' && copy === null) return { kind: 'other', reason: 'a bounce with no text' }
  const attached = part(mail, RETURNED_PARTS)
  const original = attached ? await originalOf(attached.content) : copy ? await originalOf(Buffer.from(copy)) : noOriginal()
  const about = { ...original, messageId: original.messageId ?? messageIdOf(mail.inReplyTo) }
  return { kind: 'plain-bounce', text: notice, quoted: quotedAddresses(notice), original: about }
}

/** What the returned message (or its headers) says, when the report carries it. */
async function returnedOriginal(mail: ParsedMail): Promise<OriginalMessage> {
  const returned = part(mail, RETURNED_PARTS)
  return returned ? originalOf(returned.content) : noOriginal()
}
