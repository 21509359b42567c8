import MailComposer from 'nodemailer/lib/mail-composer'
import { detectMimeType } from 'nodemailer/lib/mime-funcs'
import type { Attachment } from './checks.ts'
import { textFromHtml } from './text-part.ts'

export interface Mailbox {
  address: string
  name?: string
}

export interface MessageParts {
  from: Mailbox
  to: Mailbox[]
  cc: string[]
  /** Never written into the message; they are recipients of the envelope only. */
  bcc: string[]
  replyTo: string[]
  subject: string
  html?: string
  text?: string
  headers: Record<string, string>
  attachments: Attachment[]
  /** With angle brackets: <id@example.com>. */
  messageId: string
  /** A reply's thread: the Message-ID it answers, and the ids of the thread before it. */
  inReplyTo?: string
  references?: string
  date: Date
}


/** Printable ASCII, tabs and CRLF or LF line ends only. */
const isAsciiText = (text: string) => /^[\t\n\r\x20-\x7e]*$/.test(text) && !/\r(?!\n)/.test(text)

/**
 * An attachment for the composer. Text that is plain ASCII goes as it is (7bit, line ends made
 * CRLF as MIME's canonical form wants), or quoted-printable when a line is over RFC 5322's 998
 * octets: base64 would hide words that people and filters can read, and filters score
 * base64-encoded text. Anything else stays base64.
 */
function attachmentNode(a: Attachment) {
  const contentType = a.contentType ?? detectMimeType(a.filename)
  if (/^text\//i.test(contentType)) {
    const text = Buffer.from(a.content, 'base64').toString('latin1')
    if (isAsciiText(text)) {
      const contentTransferEncoding = /[^\r\n]{999}/.test(text) ? 'quoted-printable' : '7bit'
      return { filename: a.filename, content: text.replace(/\r?\n/g, '\r\n'), contentType, contentTransferEncoding }
    }
  }
  return { filename: a.filename, content: a.content, encoding: 'base64', contentType: a.contentType }
}

/**
 * The message, built once with nodemailer's MailComposer. Every attempt and every recipient gets
 * these same bytes; only the envelope differs.
 */
export async function buildMessage(parts: MessageParts): Promise<Uint8Array> {
  const composer = new MailComposer({
    from: parts.from,
    to: parts.to,
    cc: parts.cc,
    replyTo: parts.replyTo.length > 0 ? parts.replyTo : undefined,
    subject: parts.subject,
    html: parts.html,
    text: parts.text ?? (parts.html !== undefined ? textFromHtml(parts.html) : undefined),
    headers: parts.headers,
    attachments: parts.attachments.map(attachmentNode),
    messageId: parts.messageId,
    inReplyTo: parts.inReplyTo,
    references: parts.references,
    date: parts.date,
    // Quoted-printable always: nodemailer otherwise scans every part to choose, several times over.
    textEncoding: 'quoted-printable',
    disableFileAccess: true,
    disableUrlAccess: true,
  })
  return composer.compile().build()
}
