import type { SMTPServerOptions, SMTPServerSession } from 'smtp-server'
import type { Registry } from '../lib/metrics.ts'

/** Wraps a listener's options so that its handlers' answers are counted. */
export type ObserveSessions = (options: SMTPServerOptions) => SMTPServerOptions

/** What a session has seen so far. */
interface Marks {
  accepted: boolean
  refused: boolean
  failed: boolean
}

type Callback = (error?: Error | null, ...rest: unknown[]) => void

/** The server's trouble, not the client's: a 451 ("local error in processing"), or an error never meant as an answer. */
const isOurs = (error: Error) => {
  const code = (error as { responseCode?: number }).responseCode
  return code === undefined || code === 451
}

/**
 * SMTP sessions (one a connection) by listener and by what became of them, counted when they
 * close: `error` when the server failed at least once (a 451: the client should try again);
 * else `accepted` when at least one message was taken; else `rejected` when something was refused
 * (the connection, a login, a sender, a recipient, a message); else `empty`, a client that left
 * without trying to send (a probe, a monitor). Messages taken are counted apart.
 */
export function sessionMetrics(registry: Registry) {
  const sessions = registry.counter({
    name: 'mailstead_smtp_sessions_total',
    help: 'SMTP sessions by listener and result when they closed: error (the server failed once), accepted (a message was taken), rejected (something was refused), empty',
    labelNames: ['listener', 'result'],
  })
  const messages = registry.counter({
    name: 'mailstead_smtp_messages_received_total',
    help: 'Messages an SMTP listener accepted (a 250 after DATA)',
    labelNames: ['listener'],
  })

  return (listener: string): ObserveSessions =>
    (options) => {
      const marks = new WeakMap<SMTPServerSession, Marks>()
      const answered = (session: SMTPServerSession, error: Error | null | undefined, isData = false) => {
        if (!error && !isData) return
        const seen = marks.get(session) ?? { accepted: false, refused: false, failed: false }
        if (!error) seen.accepted = true
        else if (isOurs(error)) seen.failed = true
        else seen.refused = true
        marks.set(session, seen)
        if (!error) messages.inc({ listener })
      }
      const closed = (session: SMTPServerSession) => {
        const seen = marks.get(session)
        const result = seen?.failed ? 'error' : seen?.accepted ? 'accepted' : seen?.refused ? 'rejected' : 'empty'
        sessions.inc({ listener, result })
      }
      return {
        ...options,
        onConnect: watched(options.onConnect, answered),
        onAuth: watched(options.onAuth, answered),
        onMailFrom: watched(options.onMailFrom, answered),
        onRcptTo: watched(options.onRcptTo, answered),
        onData: watched(options.onData, (session, error) => answered(session, error, true)),
        onClose(session, callback) {
          closed(session)
          if (options.onClose) options.onClose(session, callback)
          else callback()
        },
      }
    }
}

/** A handler whose answer (the error given to its callback, or none) is seen first. */
function watched<H extends (...args: any[]) => void>(handler: H | undefined, seen: (session: SMTPServerSession, error: Error | null | undefined) => void): H | undefined {
  if (!handler) return undefined
  return function (this: unknown, ...args: unknown[]) {
    // smtp-server calls every handler with the session and the callback last.
    const session = args[args.length - 2] as SMTPServerSession
    const callback = args[args.length - 1] as Callback
    args[args.length - 1] = (error?: Error | null, ...rest: unknown[]) => {
      seen(session, error)
      callback(error, ...rest)
    }
    handler.apply(this, args)
  } as H
}
