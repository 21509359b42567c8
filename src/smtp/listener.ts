import type { Readable } from 'node:stream'
import type { SMTPServer, SMTPServerSession } from 'smtp-server'
import type { Logger } from '../lib/logger.ts'

export interface ListenerStatus {
  state: 'up' | 'down' | 'off'
  port?: number
  error?: string
}

/**
 * Starts a listener. A port that cannot be bound stops this listener only: the log says which
 * setting to change, and the status says `down` for /health.
 */
export function listen(server: SMTPServer, name: string, setting: string, host: string, port: number, logger: Logger): Promise<ListenerStatus> {
  return new Promise((resolve) => {
    let listening = false
    // smtp-server also reports a client's trouble (a dropped connection) as an error of its own.
    server.on('error', (error: NodeJS.ErrnoException) => {
      if (listening) return logger.debug('SMTP', `${name}: ${error.message}`, { code: error.code })
      const hint = error.code === 'EACCES' ? 'the port needs root or CAP_NET_BIND_SERVICE' : error.code === 'EADDRINUSE' ? 'the port is in use' : error.message
      logger.error('SMTP', `${name} is not running: cannot listen on ${host}:${port} (${hint}); change ${setting}`, { code: error.code })
      resolve({ state: 'down', port, error: `${error.code ?? 'ERROR'}: ${hint}` })
    })
    server.listen(port, host, () => {
      listening = true
      const bound = (server.server.address() as { port: number }).port
      logger.info('SMTP', `${name} listening on ${host}:${bound}`)
      resolve({ state: 'up', port: bound })
    })
  })
}

export const closeListener = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()))

/** Counts each client address's open connections and refuses one over `max` (421). */
export function connectionLimit(max: number) {
  const open = new Map<string, number>()
  return {
    onConnect(session: SMTPServerSession, callback: (error?: Error) => void) {
      const count = (open.get(session.remoteAddress) ?? 0) + 1
      if (count > max) return callback(smtpError(421, '4.7.0 Too many connections from your address, try again later'))
      open.set(session.remoteAddress, count)
      callback()
    },
    onClose(session: SMTPServerSession) {
      const count = (open.get(session.remoteAddress) ?? 1) - 1
      if (count <= 0) open.delete(session.remoteAddress)
      else open.set(session.remoteAddress, count)
    },
  }
}

/** An error smtp-server answers with this code and text. */
export const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code })

/**
 * The DATA of a message, at most `maxBytes` kept (the rest is read and dropped): null when it was
 * larger, for a 552.
 */
export async function readMessage(stream: Readable & { sizeExceeded?: boolean }, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    size += chunk.length
    if (size <= maxBytes) chunks.push(chunk)
  }
  return size > maxBytes || stream.sizeExceeded ? null : Buffer.concat(chunks)
}
