import { randomUUID } from 'node:crypto'
import { SANDBOX_HOST } from '../core/projects/sandbox-host.ts'

/** How a report reached the handler: what the MX listener would have said of its SMTP session. */
export interface SandboxArrival {
  recipients: string[]
  mailFrom: string
  remoteAddress: null
}

/**
 * The feedback report (RFC 5965) a mailbox provider sends when its user marks a message as spam,
 * as the sandbox's complaint... recipients send it: to the delivery's return path, with the
 * signed message's header section, so that the MX listener's report handler judges and applies
 * it exactly as it does a real feedback loop's.
 */
export function sandboxComplaint(o: { returnPath: string; recipient: string; message: Uint8Array; at: number }): { raw: Buffer; arrival: SandboxArrival } {
  const boundary = `sandbox-arf-${randomUUID()}`
  const text = Buffer.from(o.message).toString('latin1')
  const end = text.indexOf('\r\n\r\n')
  const headers = end < 0 ? text : text.slice(0, end + 2)
  const date = new Date(o.at).toUTCString().replace('GMT', '+0000')
  const raw = [
    `From: <abuse@${SANDBOX_HOST}>`,
    `To: <${o.returnPath}>`,
    'Subject: Complaint about a message sent to the sandbox',
    `Message-ID: <${randomUUID()}@${SANDBOX_HOST}>`,
    `Date: ${date}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    `The sandbox's recipient ${o.recipient} reported this message as spam (complaint... addresses always do).`,
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: Mailstead-sandbox/1',
    'Version: 1',
    `Original-Mail-From: <${o.returnPath}>`,
    `Original-Rcpt-To: <${o.recipient}>`,
    `Arrival-Date: ${date}`,
    `Reporting-MTA: dns; ${SANDBOX_HOST}`,
    '',
    `--${boundary}`,
    'Content-Type: text/rfc822-headers',
    '',
    headers,
    `--${boundary}--`,
    '',
  ].join('\r\n')
  return { raw: Buffer.from(raw, 'latin1'), arrival: { recipients: [o.returnPath], mailFrom: '', remoteAddress: null } }
}
