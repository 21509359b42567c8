import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server'
import type { Authenticator } from '../core/projects/authenticator.ts'
import { scopeAllows } from '../core/projects/keys.ts'
import { isKeyExpiry, type Caller } from '../core/projects/projects.service.ts'
import { keepBounceNotice } from '../core/emails/bounce-notice.ts'
import { prepareRelayed } from '../core/emails/relayed.ts'
import { enqueueEmail, senderDomain, type SendSettings } from '../core/emails/send.ts'
import type { LinkSettings } from '../core/tracking/links.ts'
import { checkAddress } from '../lib/address.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import { AppError } from '../lib/errors.ts'
import { clientKey } from '../lib/ip.ts'
import type { Logger } from '../lib/logger.ts'
import { NO_ROOM } from './command-limits.ts'
import { smtpError, type ConnectionLimit } from './listener.ts'
import { readMessage, type ByteBudget } from './message-budget.ts'
import type { ObserveSessions } from './session-metrics.ts'
import type { TlsMaterial } from './tls.ts'

export interface RelayDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  authenticator: Authenticator
  sendSettings: SendSettings
  /** What tracking links are made of; absent: relayed mail is never tracked. */
  links?: LinkSettings
  clock: Clock
  logger: Logger
}

export interface RelaySettings {
  hostname: string
  allowInsecureAuth: boolean
  maxRecipients: number
  maxMessageBytes: number
  /** Remove X-Originating-IP and the like from relayed mail. */
  dropOriginHeaders: boolean
  /** Send a DSN to the envelope sender of relayed mail that bounces later. */
  bounceNotices: boolean
}

/** What bounds the relay's clients: shared by its two listeners but for the budget, each listener's own (failed logins are the authenticator's, shared with HTTP). */
export interface RelayGuards {
  /** Open connections per client address. */
  connections: ConnectionLimit
  /** Bytes of messages held at once. */
  budget: ByteBudget
}

const callerOf = (session: SMTPServerSession) => session.user as unknown as Caller | undefined

/**
 * An AppError from the send path as an SMTP refusal: 4xx for our trouble; for the client's, 535 for
 * a key revoked since AUTH, 554 5.6.x for a message that cannot go as written, else 550 5.7.1.
 */
function refusal(error: unknown) {
  if (!(error instanceof AppError) || error.status >= 500) return smtpError(451, '4.3.0 Temporary failure, try again later')
  if (error.code === 'UNAUTHORIZED') return smtpError(535, `5.7.8 ${error.message}`)
  if (error.code === 'MESSAGE_MALFORMED') return smtpError(554, `5.6.0 ${error.message}`)
  if (error.code === 'SMTPUTF8_REQUIRED') return smtpError(554, `5.6.7 ${error.message}`)
  return smtpError(550, `5.7.1 ${error.message}`)
}

/** The session's caller if it is still allowed to send: its key not revoked, its project not disabled. */
async function standingCaller(authenticator: Authenticator, session: SMTPServerSession): Promise<Caller | undefined> {
  const caller = callerOf(session)
  if (caller) await authenticator.confirm(caller)
  return caller
}

/**
 * The SMTP relay for applications: AUTH (PLAIN or LOGIN, any user name, a secret key as the
 * password), then mail from the key's project's verified domains to at most `maxRecipients`
 * envelope recipients. What it accepts goes through the same queue and events as the HTTP API;
 * the 250 names the email id. `secure` is TLS from the first byte (465); otherwise STARTTLS, and
 * AUTH is neither offered nor taken before it (unless allowInsecureAuth), as Postfix does with
 * smtpd_tls_auth_only. The key is confirmed again before every MAIL, RCPT and message.
 */
export function createRelay(deps: RelayDeps, settings: RelaySettings, guards: RelayGuards, tls: TlsMaterial, secure: boolean, observe: ObserveSessions): SMTPServer {
  const { connections: limit } = guards
  return new SMTPServer(observe({
    name: settings.hostname,
    banner: 'Mailstead relay',
    logger: false,
    secure,
    key: tls.key,
    cert: tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: true,
    allowInsecureAuth: settings.allowInsecureAuth,
    size: settings.maxMessageBytes,
    onConnect(session, callback) {
      // No AUTH before TLS: the key never travels in clear, and nothing prompts for it.
      if (!session.secure && !settings.allowInsecureAuth) session.disabledCommands = ['AUTH']
      limit.onConnect(session, callback)
    },
    onSecure(_socket, session, callback) {
      session.disabledCommands = []
      callback()
    },
    onClose: limit.onClose,
    onAuth(auth: SMTPServerAuthentication, session, callback) {
      // The one login rule of HTTP and SMTP: after failed logins from the address, every login from it waits first.
      deps.authenticator
        .logIn(auth.password ?? undefined, clientKey(session.remoteAddress))
        .then((caller) => {
          if (caller.keyType !== 'secret') throw new Error('public key')
          // Relaying is sending: a read-only key is refused here, at AUTH, and says why.
          if (!scopeAllows(caller.scope, 'send')) return callback(smtpError(535, `5.7.8 This API key's scope is ${caller.scope}: it cannot send. Relay with a key whose scope is sending or full`))
          callback(null, { user: caller as never })
        })
        .catch((error) => {
          if (error instanceof AppError && error.status === 429) return callback(smtpError(454, `4.7.0 ${error.message}`))
          if (isKeyExpiry(error)) return callback(smtpError(535, `5.7.8 ${error.message}`))
          callback(smtpError(535, '5.7.8 Authentication credentials invalid: the password is a secret API key (sk_...)'))
        })
    },
    onMailFrom(address, session, callback) {
      standingCaller(deps.authenticator, session)
        .then(async (caller) => {
          if (!caller) return callback(smtpError(530, '5.7.0 Authentication required'))
          if (!checkAddress(address.address).ok) return callback(smtpError(553, '5.1.7 The sender address is not valid'))
          await senderDomain(deps.db, caller.project.id, address.address)
          callback()
        })
        .catch((error) => callback(refusal(error)))
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= settings.maxRecipients) return callback(smtpError(452, `4.5.3 At most ${settings.maxRecipients} recipients per message`))
      if (!checkAddress(address.address).ok) return callback(smtpError(553, '5.1.3 The recipient address is not valid'))
      standingCaller(deps.authenticator, session).then(() => callback(), (error) => callback(refusal(error)))
    },
    onData(stream, session, callback) {
      readMessage(stream, settings.maxMessageBytes, guards.budget)
        .then(async (received) => {
          try {
            if (received.tooBig || received.size > settings.maxMessageBytes) return callback(smtpError(552, '5.3.4 Message too big'))
            if (received.noRoom) return callback(smtpError(452, NO_ROOM))
            callback(null, await queueRelayed(deps, settings, session, received.kept))
          } finally {
            received.release()
          }
        })
        .catch((error) => {
          // A client that left (or was cut off at its deadline) in the middle of its message is no fault of ours.
          const gone = (error as NodeJS.ErrnoException)?.code === 'ECONNECTION'
          if (!(error instanceof AppError) && !gone) deps.logger.error('RELAY', 'a message could not be queued', { error: String((error as Error)?.stack ?? error) })
          callback(refusal(error))
        })
    },
  }))
}

/** Queues a message the session's caller relayed, if it still may send; answers the 250's text. */
async function queueRelayed(deps: RelayDeps, settings: RelaySettings, session: SMTPServerSession, raw: Buffer): Promise<string> {
  const caller = (await standingCaller(deps.authenticator, session))!
  const { mailFrom, rcptTo, smtpUtf8 } = session.envelope
  const envelope = { envelopeFrom: mailFrom ? mailFrom.address : '', envelopeTo: rcptTo.map((r) => r.address), smtpUtf8: smtpUtf8 ?? false }
  const message = { ...envelope, dropOriginHeaders: settings.dropOriginHeaders, raw }
  const now = deps.clock.now()
  const prepared = await prepareRelayed(deps.db, caller.project.id, message, now, deps.links)
  const { emailId } = await deps.write(async (trx) => {
    const queued = await enqueueEmail(trx, prepared, deps.sendSettings, now)
    if (settings.bounceNotices) await keepBounceNotice(trx, queued.emailId, message.envelopeFrom)
    return queued
  })
  // The queue's insert said its deliveries wait: the writer woke the delivery loop once they committed.
  deps.logger.debug('QUEUED', `relayed ${emailId}`, { projectId: caller.project.id, recipients: message.envelopeTo.length })
  return `2.0.0 Queued as ${emailId}`
}
