import type { SMTPServer, SMTPServerSession } from 'smtp-server'
import { clientKey } from '../lib/ip.ts'
import type { Logger } from '../lib/logger.ts'

export interface ListenerStatus {
  state: 'up' | 'down' | 'off'
  port?: number
  error?: string
}

/** What listen() found: the status for /health, and the error code when the port could not be bound. */
export type Listening = ListenerStatus & { code?: string; hint?: string }

/** Why a port could not be bound, in words that say what to do. */
export function bindHint(code: string | undefined, message: string): string {
  if (code === 'EACCES') return 'the port needs root or CAP_NET_BIND_SERVICE'
  if (code === 'EADDRINUSE') return 'the port is in use'
  return message
}

/**
 * Starts a listener. A port that cannot be bound stops this listener only: the status says `down`
 * for /health, and the caller logs which setting to change (or moves it to another port).
 */
export function listen(server: SMTPServer, name: string, host: string, port: number, logger: Logger): Promise<Listening> {
  return new Promise((resolve) => {
    let listening = false
    // smtp-server also reports a client's trouble (a dropped connection) as an error of its own.
    server.on('error', (error: NodeJS.ErrnoException) => {
      if (listening) return logger.debug('SMTP', `${name}: ${error.message}`, { code: error.code })
      const hint = bindHint(error.code, error.message)
      resolve({ state: 'down', port, error: `${error.code ?? 'ERROR'}: ${hint}`, code: error.code, hint })
    })
    server.listen(port, host, () => {
      listening = true
      const bound = (server.server.address() as { port: number }).port
      logger.info('SMTP', `${name} listening on ${host}:${bound}`)
      resolve({ state: 'up', port: bound })
    })
  })
}

/** How often a draining listener looks for connections whose transaction has ended. */
const DRAIN_POLL_MS = 25
/** How long a drained listener waits for its sockets to go once every session is closed. */
const SOCKETS_GONE_MS = 1000

type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never

/** Between transactions: no MAIL accepted yet, or the last message answered (the envelope is reset). */
const betweenTransactions = (connection: Connection) => !connection.session?.envelope?.mailFrom

const shutDown = (connection: Connection) => connection.send(421, 'Server shutting down, try again later')

/**
 * Closes a listener the way a stopping server should: it takes no new connections and no new
 * transactions (MAIL gets a 421); a connection between transactions is sent a 421 and closed at
 * once; one in the middle of a transaction may finish it (through DATA and its reply) and is then
 * closed. After `graceMs` every connection left is closed with a 421: its client keeps the message
 * and tries again later. Answers how many were cut off that way.
 *
 * smtp-server's own close() refuses every command after it is called, so a client between RCPT
 * and DATA would lose its transaction, and it waits for idle connections; hence this instead.
 */
export async function drainListener(server: SMTPServer, graceMs: number): Promise<number> {
  const deadline = Date.now() + graceMs
  server.onMailFrom = (_address, _session, callback) => callback(smtpError(421, 'Server shutting down, try again later'))
  const socketsGone = new Promise<void>((resolve) => server.server.close(() => resolve()))
  for (;;) {
    for (const connection of server.connections) if (betweenTransactions(connection)) shutDown(connection)
    if (server.connections.size === 0 || Date.now() >= deadline) break
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS))
  }
  const cut = server.connections.size
  for (const connection of [...server.connections]) shutDown(connection)
  await Promise.race([socketsGone, new Promise((resolve) => setTimeout(resolve, SOCKETS_GONE_MS).unref())])
  return cut
}

/**
 * Counts each client's open connections (its address as every limit counts it: IPv6 by its /64)
 * and refuses one over `max` (421). One count may serve several listeners (the relay's 587 and 465).
 */
export function connectionLimit(max: number) {
  const open = new Map<string, number>()
  // smtp-server calls onClose for a connection that onConnect refused too: only those counted go.
  const counted = new WeakMap<SMTPServerSession, string>()
  return {
    onConnect(session: SMTPServerSession, callback: (error?: Error) => void) {
      const key = clientKey(session.remoteAddress)
      const count = (open.get(key) ?? 0) + 1
      if (count > max) return callback(smtpError(421, '4.7.0 Too many connections from your address, try again later'))
      open.set(key, count)
      counted.set(session, key)
      callback()
    },
    onClose(session: SMTPServerSession) {
      const key = counted.get(session)
      if (key === undefined) return
      counted.delete(session)
      const count = (open.get(key) ?? 1) - 1
      if (count <= 0) open.delete(key)
      else open.set(key, count)
    },
  }
}

export type ConnectionLimit = ReturnType<typeof connectionLimit>

/** An error smtp-server answers with this code and text. */
export const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code })
