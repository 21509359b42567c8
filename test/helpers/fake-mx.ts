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
  /** Decides each RCPT: accept by default. */
  onRcpt?: (to: string, count: number) => RcptAnswer
  /** Offer STARTTLS (smtp-server's own self-signed certificate). */
  starttls?: boolean
}

/**
 * A receiving mail server for tests: smtp-server on a loopback address, recording what it accepts.
 */
export class FakeMx {
  readonly received: ReceivedMessage[] = []
  private server: SMTPServer
  private rcpts = 0
  port = 0
  ehloNames: string[] = []

  constructor(private readonly options: FakeMxOptions = {}) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: options.starttls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      logger: false,
      size: 20 * 1024 * 1024,
      onConnect: (session, callback) => callback(),
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
        stream.on('end', () => {
          this.received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
            secure: session.secure,
          })
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
