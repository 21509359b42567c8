import { checkAddress } from '../lib/address.ts'
import { newId } from '../lib/ids.ts'
import type { Logger } from '../lib/logger.ts'
import type { MailWork } from './mail-work.ts'
import type { TransferFn } from './transfer.ts'

/** A message the server writes itself, to one person. */
export interface SystemMessage {
  to: string
  subject: string
  text: string
  html: string
}

/** What became of one: handed over (a 2xx reply), or why not. */
export interface SystemMailResult {
  sent: boolean
  error: string | null
}

export type SendSystemMail = (message: SystemMessage) => Promise<SystemMailResult>

/**
 * The server's own mail (an invitation to a project), from `sender`: built by the mail workers and
 * handed to the recipient's MX hosts by the same transfer as every delivery (MX and null MX,
 * MTA-STS, STARTTLS, the smarthost when one is set), once, within `timeoutMs`. It belongs to no
 * project and is not queued: the caller says what came of it to the person waiting, who can
 * still copy the link. It is not DKIM-signed: the server's host name has no key of its own.
 */
export function createSystemMail(deps: { transfer: TransferFn; work: MailWork; logger: Logger; sender: string; timeoutMs: number }): SendSystemMail {
  return async (message) => {
    const checked = checkAddress(message.to)
    if (!checked.ok) return { sent: false, error: `The address cannot be mailed: ${checked.reason}` }
    const domain = deps.sender.slice(deps.sender.lastIndexOf('@') + 1)
    const mime = await deps.work.build({
      from: { address: deps.sender, name: 'Mailstead' },
      to: [{ address: message.to }],
      cc: [],
      bcc: [],
      replyTo: [],
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: { 'Auto-Submitted': 'auto-generated' },
      attachments: [],
      messageId: `<${newId()}@${domain}>`,
      date: new Date(),
    })
    const result = await deps.transfer(checked.value.asciiDomain, deps.sender, message.to, mime, Date.now() + deps.timeoutMs)
    const outcome = outcomeOf(result)
    deps.logger[outcome.sent ? 'info' : 'warn']('SYSTEM_MAIL', outcome.sent ? `sent to ${message.to}` : `not sent to ${message.to}: ${outcome.error}`)
    return outcome
  }
}

function outcomeOf(result: Awaited<ReturnType<TransferFn>>): SystemMailResult {
  if (result.kind === 'no-route') return { sent: false, error: result.reason }
  if (result.kind === 'unreached') return { sent: false, error: `No mail server of the domain could be reached: ${String(result.trace)}` }
  if (result.reply.code >= 200 && result.reply.code < 300) return { sent: true, error: null }
  return { sent: false, error: `${result.host} answered ${result.reply.response.replace(/\r?\n/g, ' ')}` }
}
