import { SMTPServer, type SMTPServerSession } from 'smtp-server'
import { domainsOfReportAddress, reportAddressHost } from '../core/dmarc/dmarc.service.ts'
import { isReturnPathHost } from '../core/domains/index.ts'
import { emailOfUnsubscribeAddress } from '../core/tracking/unsubscribe-links.ts'
import { parseReturnPath } from '../delivery/verp.ts'
import { handleDmarcMail } from './dmarc-mail.ts'
import { createReportHandler, type ReportDeps } from './handle-report.ts'
import { NO_ROOM } from './command-limits.ts'
import { smtpError, type ConnectionLimit } from './listener.ts'
import { readMessage, type ByteBudget } from './message-budget.ts'
import type { ObserveSessions } from './session-metrics.ts'
import type { TlsMaterial } from './tls.ts'
import { handleUnsubscribeMail } from './unsubscribe-mail.ts'

export interface MxSettings {
  hostname: string
  fblAddress: string
  /** Feedback-loop senders (domains) whose DKIM-signed complaints count without a token. */
  fblSenders: readonly string[]
  /** The SIZE it announces: a longer message is refused (552). */
  maxMessageBytes: number
  /** The bytes of a message it keeps and reads; the rest is read and dropped. */
  keepBytes: number
}

export interface MxGuards {
  /** Open connections per client address. */
  connections: ConnectionLimit
  /** Bytes of messages held at once. */
  budget: ByteBudget
}

const MAX_RECIPIENTS = 100
const MAX_MESSAGES_PER_SESSION = 100

const isReportAddress = (address: string) => reportAddressHost(address) !== undefined

/**
 * The MX listener: receives what the world sends back. It takes mail only for this server's
 * return-path addresses with a valid token at the return-path host of one of its sending domains,
 * its unsubscribe addresses, the complaint address, and the DMARC report address
 * (dmarc@<return-path host>) of a sending domain it has; anything else is refused, so it can never
 * relay. Taking a report is not believing it: handle-report decides what it may change. A DMARC
 * report travels alone: its DATA answer is its own.
 *
 * Anyone may send here, so what it holds is bounded: of each message it keeps the first
 * `keepBytes` (a bounce's or complaint's status part and the original's headers come first, its
 * body last) and reads the rest to drop it; and its sessions hold no more than the budget in all.
 * Only what was kept is parsed, scanned and stored.
 */
export function createMxListener(deps: ReportDeps, settings: MxSettings, guards: MxGuards, tls: TlsMaterial, observe: ObserveSessions): SMTPServer {
  const limit = guards.connections
  const dmarcInTurn = oneAtATime()
  const messages = new WeakMap<object, number>()
  const handleReport = createReportHandler(deps, { fblAddress: settings.fblAddress, fblSenders: settings.fblSenders })
  const temporaryFailure = (what: string, error: unknown) => {
    deps.logger.error('REPORT', what, { error: String((error as Error)?.stack ?? error) })
    return smtpError(451, '4.3.0 Temporary failure, try again later')
  }
  /** What becomes of a message that arrived (`raw`, its first bytes, of `size` in all): its DATA answer. */
  async function receive(raw: Buffer, size: number, session: SMTPServerSession): Promise<{ code?: number; message: string }> {
    const recipients = session.envelope.rcptTo.map((r) => r.address)
    if (recipients.length === 1 && isReportAddress(recipients[0]!)) {
      // A report cut short cannot be unpacked: refused for good, and the reporter is told why.
      if (size > raw.length) return { code: 552, message: `5.3.4 A DMARC report is taken up to ${settings.keepBytes / 1024} KiB` }
      const answer = await dmarcInTurn(() => handleDmarcMail(deps, raw, recipients[0]!.toLowerCase()))
      return answer.accepted ? { message: answer.message } : { code: answer.code, message: answer.message }
    }
    const unsubscribes = recipients.flatMap((to) => emailOfUnsubscribeAddress(deps.secret, to) ?? [])
    if (unsubscribes.length > 0) await handleUnsubscribeMail(deps, unsubscribes)
    if (unsubscribes.length === recipients.length) return { message: 'Unsubscribe request received' }
    const reportTo = recipients.filter((to) => emailOfUnsubscribeAddress(deps.secret, to) === undefined)
    const result = await handleReport(raw, arrivalOf(session, reportTo, size))
    if ('retry' in result) {
      deps.logger.warn('REPORT', `a report will be judged when it comes again: ${result.retry}`)
      return { code: 451, message: '4.7.5 The report could not be checked now (DKIM), try again later' }
    }
    return { message: 'Report received' }
  }

  return new SMTPServer(observe({
    name: settings.hostname,
    banner: 'Mailstead MX: bounces, feedback reports and unsubscribe requests only',
    logger: false,
    disabledCommands: ['AUTH'],
    authOptional: true,
    key: tls.key,
    cert: tls.cert,
    size: settings.maxMessageBytes,
    onConnect: limit.onConnect,
    onClose: limit.onClose,
    onMailFrom(_address, session, callback) {
      const count = (messages.get(session) ?? 0) + 1
      messages.set(session, count)
      if (count > MAX_MESSAGES_PER_SESSION) return callback(smtpError(421, '4.7.0 Too many messages in one session'))
      callback()
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpError(452, '4.5.3 Too many recipients'))
      const to = address.address.toLowerCase()
      const relayingDenied = smtpError(550, '5.7.1 Relaying denied: this server takes mail only for its own return paths')
      const alone = smtpError(452, '4.5.3 A DMARC report goes in a message of its own: send to this recipient in another transaction')
      if (isReportAddress(to)) {
        if (session.envelope.rcptTo.length > 0) return callback(alone)
        domainsOfReportAddress(deps.db, to)
          .then((domains) => callback(domains.length > 0 ? undefined : relayingDenied))
          .catch((error) => {
            deps.logger.error('DMARC', 'a report address could not be looked up', { error: String((error as Error)?.stack ?? error) })
            callback(smtpError(451, '4.3.0 Temporary failure, try again later'))
          })
        return
      }
      const afterDmarc = session.envelope.rcptTo.some((r) => isReportAddress(r.address)) ? alone : undefined
      if (to === settings.fblAddress || emailOfUnsubscribeAddress(deps.secret, to) !== undefined) return callback(afterDmarc)
      const token = parseReturnPath(deps.secret, to)
      if (!token) return callback(relayingDenied)
      isReturnPathHost(deps.db, token.host)
        .then((ours) => callback(ours ? afterDmarc : relayingDenied))
        .catch((error) => callback(temporaryFailure('a return-path host could not be looked up', error)))
    },
    onData(stream, session, callback) {
      readMessage(stream, settings.keepBytes, guards.budget)
        .then(async (received) => {
          try {
            if (received.tooBig) return callback(smtpError(552, '5.3.4 Message too big'))
            if (received.noRoom) return callback(smtpError(452, NO_ROOM))
            const answer = await receive(received.kept, received.size, session)
            callback(answer.code ? smtpError(answer.code, answer.message) : null, answer.message)
          } finally {
            received.release()
          }
        })
        .catch((error) => callback(temporaryFailure('a report could not be applied', error)))
    },
  }))
}

const arrivalOf = (session: SMTPServerSession, recipients: string[], size: number) => ({
  recipients: recipients.map((to) => to.toLowerCase()),
  mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
  remoteAddress: session.remoteAddress ?? null,
  size,
})

/**
 * Runs the work given to it one at a time, in turn. A DMARC report may unpack to 10 MiB of XML
 * from a kept megabyte: reports in turn hold one such at a time, however many arrive at once.
 */
function oneAtATime() {
  let last: Promise<unknown> = Promise.resolve()
  return <T>(work: () => Promise<T>): Promise<T> => {
    const turn = last.then(work, work)
    last = turn.catch(() => undefined)
    return turn
  }
}
