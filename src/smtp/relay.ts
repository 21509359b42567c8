import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server'
import type { Authenticator } from '../core/projects/authenticator.ts'
import type { Caller } from '../core/projects/projects.service.ts'
import { prepareRelayed } from '../core/emails/relayed.ts'
import { enqueueEmail, sendingDomain, type SendSettings } from '../core/emails/send.ts'
import { checkAddress } from '../lib/address.ts'
import type { Db } from '../db/schema.ts'
import type { Clock } from '../lib/clock.ts'
import { createAuthThrottle } from '../lib/auth-throttle.ts'
import { AppError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import { connectionLimit, readMessage, smtpError } from './listener.ts'
import type { ObserveSessions } from './session-metrics.ts'
import type { TlsMaterial } from './tls.ts'

export interface RelayDeps {
  db: Db
  write: <T>(work: (trx: Db) => Promise<T>) => Promise<T>
  authenticator: Authenticator
  sendSettings: SendSettings
  /** Tells the delivery loop that mail was queued. */
  queued(): void
  clock: Clock
  logger: Logger
}

export interface RelaySettings {
  hostname: string
  allowInsecureAuth: boolean
  maxRecipients: number
  maxMessageBytes: number
  maxConnectionsPerIp: number
}

const callerOf = (session: SMTPServerSession) => session.user as unknown as Caller | undefined

/** An AppError from the send path as an SMTP refusal: 4xx for our trouble, 5xx for the message's. */
const refusal = (error: unknown) =>
  error instanceof AppError && error.status < 500 ? smtpError(550, `5.7.1 ${error.message}`) : smtpError(451, '4.3.0 Temporary failure, try again later')

/**
 * The SMTP relay for applications: AUTH (PLAIN or LOGIN, any user name, a secret key as the
 * password), then mail from the key's project's verified domains to at most `maxRecipients`
 * envelope recipients. What it accepts goes through the same queue and events as the HTTP API;
 * the 250 names the email id. `secure` is TLS from the first byte (465); otherwise STARTTLS.
 */
export function createRelay(deps: RelayDeps, settings: RelaySettings, tls: TlsMaterial, secure: boolean, observe: ObserveSessions): SMTPServer {
  const limit = connectionLimit(settings.maxConnectionsPerIp)
  const throttle = createAuthThrottle(deps.clock)
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
    onConnect: limit.onConnect,
    onClose: limit.onClose,
    onAuth(auth: SMTPServerAuthentication, session, callback) {
      // After failed logins from the address, every login from it waits first: slowed, never refused.
      const checked = Bun.sleep(throttle.delay(session.remoteAddress)).then(() => deps.authenticator.authenticate(auth.password ?? undefined))
      checked
        .then((caller) => {
          if (caller.keyType !== 'secret') throw new Error('public key')
          callback(null, { user: caller as never })
        })
        .catch(() => {
          throttle.fail(session.remoteAddress)
          callback(smtpError(535, '5.7.8 Authentication credentials invalid: the password is a secret API key (sk_...)'))
        })
    },
    onMailFrom(address, session, callback) {
      const caller = callerOf(session)
      if (!caller) return callback(smtpError(530, '5.7.0 Authentication required'))
      if (!checkAddress(address.address).ok) return callback(smtpError(553, '5.1.7 The sender address is not valid'))
      sendingDomain(deps.db, caller.project.id, address.address).then(() => callback(), (error) => callback(refusal(error)))
    },
    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= settings.maxRecipients) return callback(smtpError(452, `4.5.3 At most ${settings.maxRecipients} recipients per message`))
      if (!checkAddress(address.address).ok) return callback(smtpError(553, '5.1.3 The recipient address is not valid'))
      callback()
    },
    onData(stream, session, callback) {
      const caller = callerOf(session)!
      readMessage(stream, settings.maxMessageBytes)
        .then(async (raw) => {
          if (!raw) return callback(smtpError(552, '5.3.4 Message too big'))
          const message = { envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw }
          const now = deps.clock.now()
          const prepared = await prepareRelayed(deps.db, caller.project.id, message, now)
          const { emailId } = await deps.write((trx) => enqueueEmail(trx, prepared, deps.sendSettings, now))
          deps.queued()
          deps.logger.debug('QUEUED', `relayed ${emailId}`, { projectId: caller.project.id, recipients: message.envelopeTo.length })
          callback(null, `2.0.0 Queued as ${emailId}`)
        })
        .catch((error) => {
          if (!(error instanceof AppError)) deps.logger.error('RELAY', 'a message could not be queued', { error: String((error as Error)?.stack ?? error) })
          callback(refusal(error))
        })
    },
  }))
}
