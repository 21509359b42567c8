import type { Socket } from 'node:net'
import type { SMTPServer, SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server'
import type { Logger } from '../lib/logger.ts'

export interface SessionLimitSettings {
  /** Sessions one listener holds at once, from every address together. */
  maxConnections: number
  /** The longest one command line may take to arrive, from its first byte to its line end; and a TLS handshake. */
  commandTimeoutMs: number
  /** The longest a DATA stream may take, before what it earns by its size. */
  dataTimeoutMs: number
}

/** Each this many bytes of a message received adds a second to its deadline: a big message on a fair line is not cut off. */
export const DATA_BYTES_PER_SECOND = 64 * 1024
const SWEEP_MS = 1000

type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never

/** When the line being received started (unset between lines), on one socket. */
interface LineWatch {
  since?: number
}

/**
 * Deadlines for whole commands and messages, and a cap on the sessions of a listener.
 * smtp-server's own timeout is between bytes: a client that sends one byte every few seconds never
 * meets it, and so can hold a session (and a slot of the per-address limit) for ever. Here the
 * client's bytes are watched on the session's socket (the TLS one once there is one), and a sweep
 * once a second answers 421 4.4.2 and closes a session whose command line, DATA stream or TLS
 * handshake has run past its deadline. One instance per listener: `options` wraps its handlers,
 * `watch` starts the sweep once the server exists.
 */
export function sessionLimits(settings: SessionLimitSettings, logger: Logger) {
  let server: SMTPServer | undefined
  const lines = new WeakMap<Socket, LineWatch>()
  const messages = new WeakMap<SMTPServerSession, { since: number; stream: SMTPServerDataStream }>()
  const handshakes = new WeakMap<Connection, number>()

  const watchLines = (socket: Socket) => {
    if (lines.has(socket)) return
    const watch: LineWatch = {}
    lines.set(socket, watch)
    socket.on('data', (chunk: Buffer) => {
      const lf = chunk.lastIndexOf(0x0a)
      if (lf === chunk.length - 1) watch.since = undefined
      else if (lf >= 0) watch.since = Date.now()
      else watch.since ??= Date.now()
    })
  }
  const connectionOf = (session: SMTPServerSession) => [...(server?.connections ?? [])].find((c) => c.session === session)

  const overdue = (connection: Connection, now: number): string | undefined => {
    if (connection._upgrading) {
      const since = handshakes.get(connection) ?? now
      handshakes.set(connection, since)
      return now - since > settings.commandTimeoutMs ? 'TLS handshake' : undefined
    }
    const message = messages.get(connection.session)
    if (message) {
      const allowed = settings.dataTimeoutMs + (message.stream.byteLength / DATA_BYTES_PER_SECOND) * 1000
      return now - message.since > allowed ? 'message' : undefined
    }
    watchLines(connection._socket)
    const since = lines.get(connection._socket)!.since
    return since !== undefined && now - since > settings.commandTimeoutMs ? 'command' : undefined
  }

  const sweep = () => {
    const now = Date.now()
    for (const connection of server?.connections ?? []) {
      const late = overdue(connection, now)
      if (!late) continue
      logger.debug('SMTP', `session closed: its ${late} took too long`, { remoteAddress: connection.remoteAddress })
      // Nothing can be written in the middle of a TLS handshake: the socket just goes.
      if (late === 'TLS handshake') connection._socket.destroy()
      else connection.send(421, `4.4.2 ${connection.name} Timeout: the ${late} took too long, closing connection`)
    }
  }

  return {
    options(options: SMTPServerOptions): SMTPServerOptions {
      return {
        ...options,
        maxClients: settings.maxConnections,
        onConnect(session, callback) {
          const connection = connectionOf(session)
          if (connection) watchLines(connection._socket)
          if (options.onConnect) options.onConnect(session, callback)
          else callback()
        },
        onSecure(socket, session, callback) {
          const go = (error?: Error | null) => {
            callback(error)
            watchLines(socket as Socket)
          }
          if (options.onSecure) options.onSecure(socket, session, go)
          else go()
        },
        onData(stream, session, callback) {
          messages.set(session, { since: Date.now(), stream })
          const done = () => messages.delete(session)
          stream.once('end', done)
          stream.once('close', done)
          options.onData!(stream, session, callback)
        },
      }
    },
    /** Starts the sweep over `server`'s sessions, and a deadline for each socket to become one (a TLS handshake on 465); answers its stop. */
    watch(watched: SMTPServer): () => void {
      server = watched
      const accepted = (socket: Socket) => {
        const timer = setTimeout(() => {
          if (!socket.destroyed && ![...watched.connections].some((c) => c.remotePort === socket.remotePort)) socket.destroy()
        }, settings.commandTimeoutMs)
        timer.unref()
        socket.once('close', () => clearTimeout(timer))
      }
      watched.server.on('connection', accepted)
      const timer = setInterval(sweep, SWEEP_MS)
      timer.unref()
      return () => {
        clearInterval(timer)
        watched.server.off('connection', accepted)
      }
    },
  }
}
