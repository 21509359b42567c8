import { compile } from 'html-to-text'
import MailComposer from 'nodemailer/lib/mail-composer'
import type { Attachment } from './checks.ts'

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

/**
 * The plain-text part of an HTML body, for mail sent with HTML alone. Compiled once: compiling the
 * options is most of the cost of converting a message.
 */
export const textFromHtml = compile({ wordwrap: 78, selectors: [{ selector: 'img', format: 'skip' }] })

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
    attachments: parts.attachments.map((a) => ({ filename: a.filename, content: a.content, encoding: 'base64', contentType: a.contentType })),
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
