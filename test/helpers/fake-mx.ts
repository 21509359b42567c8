import { createServer, type Server, type Socket } from 'node:net'
import { SMTPServer, type SMTPServerSession } from 'smtp-server'

export interface ReceivedMessage {
  from: string
  to: string[]
  raw: Buffer
  secure: boolean
}

/** What the fake server answers to a recipient: nothing (accept) or an SMTP error. */
export type RcptAnswer = undefined | { code: number; message: string }

export interface FakeMxOptions {
  /** Decides each connection's greeting: 220 by default, or this code and text (a 421 says "not now"). */
  onConnect?: (count: number) => RcptAnswer
  /** Decides each RCPT: accept by default. */
  onRcpt?: (to: string, count: number) => RcptAnswer
  /** Decides each message after its DATA (the message is recorded either way): accept by default. */
  onData?: (count: number) => RcptAnswer
  /** Waits this long before answering each message. */
  delayMs?: number
  /** Awaited before answering each message (after delayMs): a test holds a message's answer until it has looked. */
  beforeAnswer?: (message: ReceivedMessage) => Promise<void> | void
  /** Offer STARTTLS (smtp-server's own self-signed certificate, unless `tls` gives one). */
  starttls?: boolean
  /** The certificate STARTTLS presents. */
  tls?: { key: string; cert: string }
}

/**
 * A receiving mail server for tests: smtp-server on a loopback address, recording what it accepts.
 */
export class FakeMx {
  readonly received: ReceivedMessage[] = []
  /** Every message that reached DATA, accepted or not. */
  readonly offered: ReceivedMessage[] = []
  private server: SMTPServer
  private rcpts = 0
  port = 0
  ehloNames: string[] = []
  connections = 0
  maxConnections = 0
  /** Connections greeted (or refused at the greeting). */
  greetings = 0

  constructor(private readonly options: FakeMxOptions = {}) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: options.starttls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      logger: false,
      // A reverse lookup of the client would ask the machine's resolver, outside the test's DNS.
      disableReverseLookup: true,
      ...(options.tls && { key: options.tls.key, cert: options.tls.cert }),
      size: 20 * 1024 * 1024,
      onConnect: (_session, callback) => {
        this.maxConnections = Math.max(this.maxConnections, ++this.connections)
        const answer = this.options.onConnect?.(++this.greetings)
        if (!answer) return callback()
        callback(Object.assign(new Error(answer.message), { responseCode: answer.code }))
      },
      onClose: () => {
        this.connections--
      },
      onMailFrom: (address, session: SMTPServerSession, callback) => {
        this.ehloNames.push(session.hostNameAppearsAs)
        callback()
      },
      onRcptTo: (address, _session, callback) => {
        const answer = this.options.onRcpt?.(address.address, ++this.rcpts)
        if (!answer) return callback()
        callback(Object.assign(new Error(answer.message), { responseCode: answer.code }))
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', async () => {
          const message = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
            secure: session.secure,
          }
          this.offered.push(message)
          if (this.options.delayMs) await Bun.sleep(this.options.delayMs)
          await this.options.beforeAnswer?.(message)
          const answer = this.options.onData?.(this.offered.length)
          if (answer) return callback(Object.assign(new Error(answer.message), { responseCode: answer.code }))
          this.received.push(message)
          callback()
        })
      },
    })
    this.server.on('error', () => {})
  }

  async start(address = '127.0.0.1', port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.server.once('error', reject)
      this.server.listen(port, address, () => resolve())
    })
    this.port = (this.server.server.address() as { port: number }).port
    return this
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}

/** A listener that misbehaves below SMTP: drops, stalls, or talks garbage or an endless line. */
export async function startBrokenMx(kind: 'drop' | 'stall' | 'garbage' | 'endless', address: string, port: number) {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    if (kind === 'drop') socket.destroy()
    if (kind === 'garbage') socket.write('HELLO THERE this is not SMTP\r\nxyz\r\n')
    if (kind === 'endless') {
      const pump = () => socket.writable && socket.write('A'.repeat(64 * 1024), () => setImmediate(pump))
      pump()
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, address, () => resolve())
  })
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
