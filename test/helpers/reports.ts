import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { returnPath } from '../../src/delivery/verp.ts'
import { SECRET } from './sending.ts'
import type { World } from './world.ts'

/*
 * Reports as the world writes them (DSN, ARF, plain-text bounces), built by hand so that a test
 * says exactly what a stranger or a receiving server put in them, and the SMTP session that
 * brings them to the MX listener.
 */

export const RETURN_PATH_HOST = 'mst.sender.example.com'

/** One delivery of an email: its row, its recipient and its VERP return path. */
export interface Sent {
  id: number
  recipient: string
  verp: string
}

/** Sends one email to several recipients (so they share its Message-ID), delivers it, and says what went out. */
export async function sendToAll(w: World, recipients: string[], html = '<p>Hi</p>') {
  for (const email of recipients) await w.t.request('POST', '/contacts', { key: w.key, body: { email, subscribed: true } })
  const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to: recipients, subject: 'Hi', html } })
  if (sent.status !== 200) throw new Error(`send failed: ${JSON.stringify(sent.body)}`)
  await w.deliver()
  const emailId: string = sent.body.emailId
  const email = await w.t.app.db.selectFrom('emails').select('message_id').where('id', '=', emailId).executeTakeFirstOrThrow()
  const rows = await w.t.app.db.selectFrom('deliveries').select(['id', 'recipient']).where('email_id', '=', emailId).orderBy('id').execute()
  const deliveries: Sent[] = rows.map((d) => ({ id: d.id, recipient: d.recipient, verp: returnPath(SECRET, d.id, RETURN_PATH_HOST) }))
  return { emailId, messageId: email.message_id, deliveries }
}

/** One SMTP session to the MX listener: MAIL FROM (<> as bounces are, unless given), the recipients, the message. */
export async function deliverReport(port: number, to: string[], message: string, from = ''): Promise<any> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port, tls: { rejectUnauthorized: false }, name: 'reporter.example' } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  try {
    return await new Promise((resolve) => connection.send({ from, to }, message, (error, info) => resolve(error ?? info)))
  } finally {
    connection.quit()
  }
}

let reports = 0
/** A fresh Message-ID for a report: replays differ by it alone. */
export const reportId = (host = 'reporter.example') => `<report-${++reports}-${Date.now()}@${host}>`

/** The header section of the original message as a report returns it. */
function original(about: { messageId: string; to: string[]; returnPath?: string; originalFrom?: string }) {
  return [
    ...(about.returnPath ? [`Return-Path: <${about.returnPath}>`] : []),
    `From: ${about.originalFrom ?? 'Ada <ada@sender.example.com>'}`,
    `To: ${about.to.join(', ')}`,
    'Subject: Hi',
    `Message-ID: ${about.messageId}`,
    '',
    '',
  ].join('\r\n')
}

export interface ArfOptions {
  messageId: string
  /** The original's To header. */
  to: string[]
  /** Original-Rcpt-To; left out when null. */
  rcptTo: string | null
  /** The original's Return-Path and Original-Mail-From (a VERP address, when the reporter has one). */
  returnPath?: string
  /** The report's own From. */
  from?: string
  /** The original's From: Ada at sender.example.com unless given. */
  originalFrom?: string
  feedbackType?: string
  id?: string
}

/** A feedback report (RFC 5965). */
export function arf(o: ArfOptions): string {
  const boundary = 'arf-boundary'
  const feedback = [
    `Feedback-Type: ${o.feedbackType ?? 'abuse'}`,
    'User-Agent: SomeGenerator/1.0',
    'Version: 1',
    ...(o.returnPath ? [`Original-Mail-From: <${o.returnPath}>`] : []),
    ...(o.rcptTo ? [`Original-Rcpt-To: <${o.rcptTo}>`] : []),
    'Reporting-MTA: dns; mail.isp.example',
  ].join('\r\n')
  return [
    `From: ${o.from ?? '<abusedesk@fbl.isp.example>'}`,
    'To: <fbl@mx.mailstead.test>',
    'Subject: FW: Hi',
    `Message-ID: ${o.id ?? reportId('fbl.isp.example')}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain',
    '',
    'This is an email abuse report.',
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    feedback,
    '',
    `--${boundary}`,
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    original(o) + 'Hi',
    `--${boundary}--`,
    '',
  ].join('\r\n')
}

export interface DsnRecipient {
  final: string | null
  original?: string
  action?: string
  status?: string
}

/** A delivery status notification (RFC 3464) about the recipients given. */
export function dsn(o: { messageId: string; to: string[]; recipients: DsnRecipient[]; returnPath?: string; id?: string }): string {
  const boundary = 'dsn-boundary'
  const groups = o.recipients.map((r) =>
    [
      ...(r.final ? [`Final-Recipient: rfc822; ${r.final}`] : []),
      ...(r.original ? [`Original-Recipient: rfc822;${r.original}`] : []),
      `Action: ${r.action ?? 'failed'}`,
      `Status: ${r.status ?? '5.1.1'}`,
      `Diagnostic-Code: smtp; 550 ${r.status ?? '5.1.1'} user unknown`,
    ].join('\r\n'),
  )
  return [
    'From: MAILER-DAEMON@mx.example.net',
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: ${o.id ?? reportId('mx.example.net')}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain',
    '',
    'Your message could not be delivered.',
    `--${boundary}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.net',
    '',
    groups.join('\r\n\r\n'),
    '',
    `--${boundary}`,
    'Content-Type: text/rfc822-headers',
    '',
    original(o),
    `--${boundary}--`,
    '',
  ].join('\r\n')
}

/** A plain-text bounce (as qmail writes one): the notice, then a copy of the original. */
export function plainBounce(o: { notice: string; messageId: string; to: string[]; returnPath?: string; id?: string }): string {
  return [
    'From: MAILER-DAEMON@mx.example.net',
    'Subject: failure notice',
    `Message-ID: ${o.id ?? reportId('mx.example.net')}`,
    '',
    'Hi. This is the qmail-send program at mx.example.net.',
    "I'm afraid I wasn't able to deliver your message to the following addresses.",
    '',
    o.notice,
    '',
    '--- Below this line is a copy of the message.',
    '',
    original(o) + 'Hi',
    '',
  ].join('\r\n')
}
