import type { SMTPServer } from 'smtp-server'
import type { ByteBudget } from './message-budget.ts'

type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never

/** How many commands a session has sent since its start or its last message. */
export interface CommandCount {
  commands: number
}

/** The answer to a new transaction while the listener holds all the message bytes it may. */
export const NO_ROOM = '4.3.1 Insufficient system storage: too many messages are arriving at once, try again later'

/**
 * Puts two checks before each command of `connection`. A session may send at most `maxCommands`
 * commands between messages (NOOP, RSET, HELP, VRFY, EHLO, MAIL, refused ones...; the count
 * starts again at 0 after each message): past that it gets 421, as sendmail's MAXNOOPCOMMANDS
 * and Exim's smtp_accept_max_nonmail do, so that a client cannot keep its slot for ever with
 * cheap commands. The RCPTs of a transaction are not counted: the recipient cap bounds those
 * taken, the others are refused at once, and a 452 past the cap asks the client to send them in
 * the next transaction. And while the listener's byte budget is full, MAIL and DATA get 452
 * 4.3.1. smtp-server has no hook for a command as a whole, hence its one command entry point is
 * wrapped.
 */
export function gateCommands(connection: Connection, count: CommandCount, maxCommands: number, budget: ByteBudget) {
  const handle = connection._onCommand
  connection._onCommand = function (command, callback) {
    // A line answering an AUTH prompt, or sent in clear during a TLS handshake, is no command of its own.
    if (connection._nextHandler || connection._upgrading) return handle.call(connection, command, callback)
    const name = command.toString('latin1', 0, 8).split(' ')[0]!.trim().toUpperCase()
    if (name !== 'RCPT' || !connection.session.envelope?.mailFrom) count.commands++
    if (count.commands > maxCommands) {
      connection.send(421, `4.7.0 ${connection.name} Too many commands without a message, closing connection`)
      return callback?.()
    }
    if ((name === 'MAIL' || name === 'DATA') && budget.full) {
      connection.send(452, NO_ROOM)
      return callback?.()
    }
    handle.call(connection, command, callback)
  }
}
