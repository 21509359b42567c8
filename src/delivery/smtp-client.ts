import SMTPConnection from 'nodemailer/lib/smtp-connection'
import type { TlsDetails } from '../core/queue/index.ts'

export interface Target {
  /** The MX host name: for TLS server name indication and for the record. */
  host: string
  /** The address to connect to. */
  address: string
  port: number
  /** Implicit TLS (smtps://, a smarthost on 465). */
  secure?: boolean
  auth?: { user: string; pass: string }
  /** Messages one connection carries before it is closed (the site's limit); the pool's default otherwise. */
  messagesPerConnection?: number
  /**
   * An MTA-STS policy in enforce mode: STARTTLS, TLS 1.2 or newer and a certificate valid for
   * `host` are required, or the connection fails; never plain text.
   */
  requireTls?: boolean
}

export interface ClientSettings {
  /** EHLO name. */
  hostname: string
  /** Refuse a remote whose certificate does not verify (STARTTLS is used whenever offered). */
  requireValidCertificate: boolean
  /** The CAs a remote's certificate is checked against; undefined: the well-known ones. */
  ca?: string[]
  /** Connection, greeting and inactivity timeout. */
  timeoutMs: number
  /** Messages one connection carries before it is closed. */
  messagesPerConnection: number
  /** An idle connection is closed after this long. */
  idleMs: number
}

/** The remote's SMTP reply to the message. */
export interface Reply {
  code: number
  response: string
  /** Absent when the message went in plain text. */
  tls?: TlsDetails
}

/**
 * The attempt ended without an SMTP reply to the message (no connection, a refused greeting, a
 * broken session): the next address may be tried.
 */
export class NetworkError extends Error {
  override name = 'NetworkError'
  constructor(
    message: string,
    readonly code: string,
    /** The server's reply that ended the session, when it gave one (a 421 greeting). */
    readonly response?: string,
  ) {
    super(message)
  }
}

interface Pooled {
  connection: SMTPConnection
  sent: number
  idleTimer?: ReturnType<typeof setTimeout>
}

const targetKey = (t: Target) => `${t.address}|${t.port}|${t.host}|${t.auth?.user ?? ''}|${t.requireTls ? 'tls' : ''}`

/**
 * SMTP connections kept open per remote host and reused: up to `messagesPerConnection` messages
 * each, closed after `idleMs` unused. A connection that saw any error is not reused.
 */
export function createSmtpPool(settings: ClientSettings) {
  const idle = new Map<string, Pooled[]>()

  function connect(target: Target): Promise<Pooled> {
    const connection = new SMTPConnection({
      host: target.address,
      port: target.port,
      secure: target.secure ?? false,
      name: settings.hostname,
      servername: target.host,
      requireTLS: target.requireTls ?? false,
      tls: {
        rejectUnauthorized: target.requireTls || settings.requireValidCertificate,
        servername: target.host,
        ...(target.requireTls && { minVersion: 'TLSv1.2' }),
        ...(settings.ca && { ca: settings.ca }),
      },
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
      allowInternalNetworkInterfaces: true,
      socketCloseTimeout: 0,
    } as SMTPConnection.Options)
    connection.on('error', () => {}) // an idle connection's errors are not news; active ones are caught below
    return whileOpen<Pooled>(connection, (resolve, reject) => {
      connection.connect(() => {
        if (!target.auth) return resolve({ connection, sent: 0 })
        connection.login(target.auth, (loginError?: Error | null) => (loginError ? reject(loginError) : resolve({ connection, sent: 0 })))
      })
    })
  }

  async function acquire(target: Target): Promise<Pooled> {
    const list = idle.get(targetKey(target)) ?? []
    while (list.length > 0) {
      const pooled = list.pop()!
      clearTimeout(pooled.idleTimer)
      if (!(pooled.connection as unknown as { _destroyed: boolean })._destroyed) return pooled
    }
    return connect(target)
  }

  function release(target: Target, pooled: Pooled) {
    if (pooled.sent >= (target.messagesPerConnection ?? settings.messagesPerConnection)) return pooled.connection.quit()
    const key = targetKey(target)
    const list = idle.get(key) ?? []
    idle.set(key, list)
    list.push(pooled)
    pooled.idleTimer = setTimeout(() => {
      list.splice(list.indexOf(pooled), 1)
      pooled.connection.quit()
    }, settings.idleMs)
    pooled.idleTimer.unref?.()
  }

  /**
   * Sends one message to one recipient; resolves with the remote's reply, even a refusal. Past
   * `deadline` (epoch ms) the connection is closed, however slowly the remote keeps talking.
   */
  async function send(target: Target, from: string, to: string, message: Uint8Array, deadline: number): Promise<Reply> {
    // Connecting is bounded by the connection and greeting timeouts; the deadline covers the rest.
    const pooled = await acquire(target)
    try {
      return await sendOn(pooled, target, from, to, message, deadline)
    } catch (error) {
      // A kept connection the remote has meanwhile closed: once more, on a new one.
      if (pooled.sent === 0 || !(error instanceof NetworkError) || Date.now() >= deadline) throw error
      return sendOn(await connect(target), target, from, to, message, deadline)
    }
  }

  async function sendOn(pooled: Pooled, target: Target, from: string, to: string, message: Uint8Array, deadline: number): Promise<Reply> {
    const timer = setTimeout(() => pooled.connection.close(), Math.max(0, deadline - Date.now()))
    try {
      const info = await whileOpen<any>(pooled.connection, (resolve, reject) =>
        pooled.connection.send({ from, to: [to] }, Buffer.from(message.buffer, message.byteOffset, message.byteLength), (error: any, result: any) => (error ? reject(error) : resolve(result))),
      )
      pooled.sent++
      const tls = tlsOf(pooled.connection)
      release(target, pooled)
      return { code: Number(String(info.response).slice(0, 3)) || 250, response: String(info.response), ...(tls && { tls }) }
    } catch (error: any) {
      pooled.connection.close()
      if (error?.responseCode) return { code: error.responseCode, response: error.response ?? error.message }
      throw Date.now() >= deadline ? new NetworkError('the attempt took too long', 'ETIMEDOUT') : asNetworkError(error)
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    send,
    /** Closes every idle connection. */
    close() {
      for (const list of idle.values()) {
        for (const pooled of list.splice(0)) {
          clearTimeout(pooled.idleTimer)
          pooled.connection.close()
        }
      }
    },
  }
}

export type SmtpPool = ReturnType<typeof createSmtpPool>

/**
 * Runs one operation on a connection and settles once: by the operation's callback, or by the
 * connection failing or closing meanwhile (nodemailer reports some failures, such as a greeting
 * that never comes, only as an event).
 */
function whileOpen<T>(connection: SMTPConnection, operation: (resolve: (value: T) => void, reject: (error: unknown) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      connection.off('error', onError)
      connection.off('end', onEnd)
    }
    const onError = (error: unknown) => {
      done()
      reject(asNetworkError(error))
    }
    // A server that says 421 closes the connection as it answers: the answer, which nodemailer
    // hands over just after the close, is what settles, not the close.
    const onEnd = () => setImmediate(() => onError(new NetworkError('the connection was closed', 'ECONNECTION')))
    connection.on('error', onError)
    connection.on('end', onEnd)
    operation(
      (value) => {
        done()
        resolve(value)
      },
      (error) => {
        done()
        reject(error)
      },
    )
  })
}

function asNetworkError(error: any): NetworkError {
  if (error instanceof NetworkError) return error
  const response = typeof error?.response === 'string' && error.response ? error.response : undefined
  return new NetworkError(String(error?.message ?? error), String(error?.code ?? 'ECONNECTION'), response)
}

/** The TLS session a connection carries, once STARTTLS (or implicit TLS) is up. */
function tlsOf(connection: SMTPConnection): TlsDetails | undefined {
  const socket = (connection as unknown as { _socket?: any })._socket
  if (!connection.secure || typeof socket?.getProtocol !== 'function') return undefined
  return { version: String(socket.getProtocol()), cipher: String(socket.getCipher()?.name ?? 'unknown'), verified: socket.authorized === true }
}
