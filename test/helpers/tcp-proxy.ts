import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 between a process and a server (PostgreSQL), so that a test can do to
 * one process what a restart of the server does to all: the connections hang, then are cut at
 * once, and new ones are refused for a while. Nothing else on the machine sees it.
 */
export class TcpProxy {
  port = 0
  /** Connections made through it so far: a client that reconnects makes new ones. */
  connections = 0
  private readonly open = new Set<Socket>()
  private refusing = false
  private server: Server

  constructor(
    private readonly target: { host: string; port: number },
  ) {
    this.server = createServer((client) => this.accept(client))
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(0, '127.0.0.1', () => resolve())
    })
    this.port = (this.server.address() as { port: number }).port
    return this
  }

  /** The URL of `url`'s database, reached through the proxy. */
  urlFor(url: string): string {
    const through = new URL(url)
    through.hostname = '127.0.0.1'
    through.port = String(this.port)
    return through.toString()
  }

  /** Holds every byte on the open connections, as a server that hangs while it shuts down. */
  stall(): void {
    for (const socket of this.open) {
      socket.unpipe()
      socket.pause()
    }
  }

  /** Cuts every connection, and refuses new ones (accepted, then closed at once) until `resume`. */
  cut(): void {
    this.refusing = true
    for (const socket of this.open) socket.destroy()
    this.open.clear()
  }

  resume(): void {
    this.refusing = false
  }

  async stop(): Promise<void> {
    this.cut()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private accept(client: Socket) {
    client.on('error', () => {})
    if (this.refusing) return void client.destroy()
    this.connections++
    const upstream = connect(this.target.port, this.target.host)
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.open.add(socket)
      socket.on('close', () => {
        this.open.delete(socket)
        other.destroy()
      })
      socket.pipe(other)
    }
  }
}
