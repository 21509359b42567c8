import MimeNode from 'nodemailer/lib/mime-node'

/** What a delivery status notification reports: one recipient's permanent failure. */
export interface DsnFacts {
  /** The host that reports: ours (the return-path host the original went out with). */
  reportingMta: string
  from: string
  to: string
  messageId: string
  date: Date
  /** The original's subject, Message-ID and arrival. */
  original: { subject: string; messageId: string; arrivedAt: Date; head: string | null }
  recipient: string
  /** An RFC 3463 status, 5.x.x. */
  status: string
  diagnostic: string | null
  remoteMta: string | null
}

/** A header value on one line: no CR or LF can reach the report from a remote server's reply. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').replace(/[^\x20-\x7e]/g, '?').trim()

/**
 * A delivery status notification (RFC 3464) as nodemailer's MimeNode builds it: multipart/report
 * with a note for people, the machine-readable message/delivery-status, and the original's header
 * block (text/rfc822-headers) when it is still kept. Auto-Submitted (RFC 3834) keeps responders
 * from answering it.
 */
export async function buildDsn(facts: DsnFacts): Promise<Uint8Array> {
  const root = new MimeNode('multipart/report; report-type=delivery-status')
  root.setHeader({
    From: facts.from,
    To: facts.to,
    Subject: `Undelivered: ${facts.original.subject}`.slice(0, 200),
    'Message-ID': facts.messageId,
    Date: facts.date.toUTCString().replace('GMT', '+0000'),
    'Auto-Submitted': 'auto-replied',
    'In-Reply-To': facts.original.messageId,
    References: facts.original.messageId,
  })
  root.createChild('text/plain; charset=utf-8').setContent(noteFor(facts))
  root.createChild('message/delivery-status').setContent(statusFields(facts))
  if (facts.original.head) root.createChild('text/rfc822-headers').setContent(facts.original.head)
  return root.build()
}

function noteFor(facts: DsnFacts): string {
  return [
    `Your message "${facts.original.subject}" ${facts.original.messageId} could not be delivered to ${facts.recipient}.`,
    '',
    facts.diagnostic ? `The receiving server said: ${oneLine(facts.diagnostic)}` : `Status: ${facts.status}`,
    '',
    'This is a permanent failure: the message will not be sent again.',
    '',
  ].join('\r\n')
}

function statusFields(facts: DsnFacts): string {
  const perRecipient = [
    `Final-Recipient: rfc822; ${oneLine(facts.recipient)}`,
    'Action: failed',
    `Status: ${/^5\.\d{1,3}\.\d{1,3}$/.test(facts.status) ? facts.status : '5.0.0'}`,
    ...(facts.remoteMta ? [`Remote-MTA: dns; ${oneLine(facts.remoteMta)}`] : []),
    ...(facts.diagnostic ? [`Diagnostic-Code: smtp; ${oneLine(facts.diagnostic)}`] : []),
  ]
  const perMessage = [`Reporting-MTA: dns; ${facts.reportingMta}`, `Arrival-Date: ${facts.original.arrivedAt.toUTCString().replace('GMT', '+0000')}`]
  return [...perMessage, '', ...perRecipient, ''].join('\r\n')
}
