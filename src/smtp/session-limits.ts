import type { Socket } from 'node:net'
import type { SMTPServer, SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server'
import type { Logger } from '../lib/logger.ts'
import { gateCommands, type CommandCount } from './command-limits.ts'
import type { ByteBudget } from './message-budget.ts'

export interface SessionLimitSettings {
  /** Sessions one listener holds at once, from every address together. */
  maxConnections: number
  /** The longest one command line may take to arrive, from its first byte to its line end; and a TLS handshake. */
  commandTimeoutMs: number
  /** The longest a DATA stream may take, before what it earns by its size. */
  dataTimeoutMs: number
  /**
   * The longest a session without a login may go from its start, or from its last message, to
   * the end of its next message, before what that message earns by its size. On the relay, where
   * nothing is taken before AUTH, the time to log in.
   */
  anonymousMs: number
  /** Commands a session may send between messages. */
  maxCommandsWithoutMessage: number
}

/** Each this many bytes of a message received adds a second to its deadlines: a big message on a fair line is not cut off. */
export const DATA_BYTES_PER_SECOND = 64 * 1024
const SWEEP_MS = 1000

type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never

/** When the line being received started (unset between lines), on one socket. */
interface LineWatch {
  since?: number
}

/** A message from DATA to its answer: its stream arriving, then (`ended`) in this server's hands. */
interface MessageWatch {
  since: number
  stream: SMTPServerDataStream
  ended: boolean
  answered: boolean
}

/** A session: since when it has run without a message (its start, or its last message), and its commands since. */
interface SessionWatch extends CommandCount {
  since: number
}

type Late = 'TLS handshake' | 'command' | 'message' | 'anonymous'

/**
 * Deadlines for whole commands, messages and sessions without a login, and caps on the sessions
 * of a listener and on the commands of a session. smtp-server's own timeout is between bytes: a
 * client that sends one byte every few seconds never meets it, and so can hold a session (and a
 * slot of the per-address limit) for ever. Here the client's bytes are watched on the session's
 * socket (the TLS one once there is one), and a sweep once a second answers 421 4.4.2 and closes
 * a session whose command line, DATA stream, TLS handshake or time without a login has run to its
 * deadline. Once a message has arrived, nothing runs while this server decides on it. One
 * instance per listener: `options` wraps its handlers, `watch` starts the sweep once the server exists.
 */
export function sessionLimits(settings: SessionLimitSettings, budget: ByteBudget, logger: Logger) {
  let server: SMTPServer | undefined
  const lines = new WeakMap<Socket, LineWatch>()
  const messages = new WeakMap<SMTPServerSession, MessageWatch>()
  const sessions = new WeakMap<SMTPServerSession, SessionWatch>()
  const handshakes = new WeakMap<Connection, number>()
  const reasons: Record<Exclude<Late, 'TLS handshake'>, string> = {
    command: 'the command took too long',
    message: 'the message took too long',
    anonymous: `no login or message within ${settings.anonymousMs / 1000} s`,
  }

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

  const overdue = (connection: Connection, now: number): Late | undefined => {
    if (connection._upgrading) {
      const since = handshakes.get(connection) ?? now
      handshakes.set(connection, since)
      return now - since >= settings.commandTimeoutMs ? 'TLS handshake' : undefined
    }
    const message = messages.get(connection.session)
    if (message?.ended) return undefined
    const earned = message ? (message.stream.byteLength / DATA_BYTES_PER_SECOND) * 1000 : 0
    const session = sessions.get(connection.session)
    if (session && !connection.session.user && now - session.since >= settings.anonymousMs + earned) return 'anonymous'
    if (message) return now - message.since >= settings.dataTimeoutMs + earned ? 'message' : undefined
    watchLines(connection._socket)
    const since = lines.get(connection._socket)!.since
    return since !== undefined && now - since >= settings.commandTimeoutMs ? 'command' : undefined
  }

  const sweep = () => {
    const now = Date.now()
    for (const connection of server?.connections ?? []) {
      const late = overdue(connection, now)
      if (!late) continue
      logger.debug('SMTP', `session closed: ${late === 'TLS handshake' ? 'its TLS handshake took too long' : reasons[late]}`, { remoteAddress: connection.remoteAddress })
      // Nothing can be written in the middle of a TLS handshake: the socket just goes.
      if (late === 'TLS handshake') connection._socket.destroy()
      else connection.send(421, `4.4.2 ${connection.name} Timeout: ${reasons[late]}, closing connection`)
    }
  }

  /** Follows a message from DATA to its answer; the answer starts the session's clock and command count again. */
  const followMessage = (session: SMTPServerSession, stream: SMTPServerDataStream) => {
    const message: MessageWatch = { since: Date.now(), stream, ended: false, answered: false }
    messages.set(session, message)
    const settle = () => {
      if (message.ended && message.answered && messages.get(session) === message) messages.delete(session)
    }
    const ended = () => {
      message.ended = true
      settle()
    }
    stream.once('end', ended)
    stream.once('close', ended)
    return () => {
      message.answered = true
      const watch = sessions.get(session)
      if (watch) Object.assign(watch, { since: Date.now(), commands: 0 })
      settle()
    }
  }

  return {
    options(options: SMTPServerOptions): SMTPServerOptions {
      return {
        ...options,
        maxClients: settings.maxConnections,
        onConnect(session, callback) {
          const watch: SessionWatch = { since: Date.now(), commands: 0 }
          sessions.set(session, watch)
          const connection = connectionOf(session)
          if (connection) {
            watchLines(connection._socket)
            gateCommands(connection, watch, settings.maxCommandsWithoutMessage, budget)
          }
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
          const answered = followMessage(session, stream)
          options.onData!(stream, session, (error, message) => {
            answered()
            callback(error, message)
          })
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
