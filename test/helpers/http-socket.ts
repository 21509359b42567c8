import { connect, type Socket } from 'node:net'

export interface SocketResponse {
  status: number
  headers: Record<string, string>
  body: any
}

/**
 * One HTTP/1.1 connection kept open for several requests, from a chosen loopback address
 * (127.0.0.2, 127.0.0.3, ...): what a browser or an application with keep-alive does, and many
 * clients as the server sees them.
 */
export class HttpSocket {
  private buffer = Buffer.alloc(0)
  private waiting: Array<() => void> = []
  closed = false

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk])
      this.notify()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      this.closed = true
      this.notify()
    })
  }

  static open(port: number, localAddress = '127.0.0.1'): Promise<HttpSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress })
      socket.once('connect', () => resolve(new HttpSocket(socket)))
      socket.once('error', reject)
    })
  }

  private notify() {
    for (const wake of this.waiting.splice(0)) wake()
  }

  private async until(ready: () => number | undefined, timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const end = ready()
      if (end !== undefined) return end
      if (this.closed) throw new Error(`connection closed; read: ${this.buffer.toString()}`)
      if (Date.now() > deadline) throw new Error(`timed out; read: ${this.buffer.toString()}`)
      await new Promise<void>((resolve) => (this.waiting.push(resolve), setTimeout(resolve, 50)))
    }
  }

  /** `timeoutMs` for its answer's head: longer for logins that the throttle makes wait behind others. */
  async request(method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<SocketResponse> {
    const body = options.body === undefined ? '' : JSON.stringify(options.body)
    const headers: Record<string, string> = { host: 'localhost', connection: 'keep-alive', 'content-length': String(Buffer.byteLength(body)), ...options.headers }
    if (options.key) headers.authorization = `Bearer ${options.key}`
    if (body) headers['content-type'] = 'application/json'
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
    this.socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`)
    const headEnd = await this.until(() => {
      const at = this.buffer.indexOf('\r\n\r\n')
      return at < 0 ? undefined : at
    }, options.timeoutMs)
    const [statusLine, ...lines] = this.buffer.subarray(0, headEnd).toString().split('\r\n')
    const responseHeaders = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
    const length = Number(responseHeaders['content-length'] ?? 0)
    await this.until(() => (this.buffer.length >= headEnd + 4 + length ? 0 : undefined))
    const text = this.buffer.subarray(headEnd + 4, headEnd + 4 + length).toString()
    this.buffer = this.buffer.subarray(headEnd + 4 + length)
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {
      // Not JSON: the test gets the text.
    }
    return { status: Number(statusLine!.split(' ')[1]), headers: responseHeaders, body: parsed }
  }

  close(): void {
    this.socket.destroy()
  }
}
