import { connect, type Socket } from 'node:net'
import { connect as connectTls } from 'node:tls'

/**
 * A TCP client for tests that must control each byte's timing (a message cut in the middle of
 * its DATA, a request body sent in two parts): it writes what it is told and reads lines.
 */
export class RawSocket {
  private text = ''
  private waiting: Array<() => void> = []
  closed = false

  private constructor(private socket: Socket) {
    this.listen(socket)
  }

  private listen(socket: Socket) {
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      this.text += chunk
      this.notify()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      this.closed = true
      this.notify()
    })
  }

  /** `from`: the local address to connect from (another loopback address, such as 127.0.0.2, is another client). */
  static open(port: number, host = '127.0.0.1', from?: string): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host, ...(from && { localAddress: from }) })
      socket.once('connect', () => resolve(new RawSocket(socket)))
      socket.once('error', reject)
    })
  }

  /** A connection with TLS from the first byte (port 465), any certificate accepted; `from` as for open(). */
  static openTls(port: number, host = '127.0.0.1', from?: string): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const socket = connectTls({ port, host, rejectUnauthorized: false, ...(from && { localAddress: from }) })
      socket.once('secureConnect', () => resolve(new RawSocket(socket)))
      socket.once('error', reject)
    })
  }

  /** Goes on over TLS on this connection (after the server's 220 to STARTTLS), any certificate accepted. */
  startTls(): Promise<void> {
    const plain = this.socket
    plain.removeAllListeners('data')
    plain.removeAllListeners('close')
    return new Promise((resolve, reject) => {
      const secure = connectTls({ socket: plain, rejectUnauthorized: false })
      secure.once('secureConnect', () => {
        this.socket = secure
        this.listen(secure)
        resolve()
      })
      secure.once('error', reject)
    })
  }

  private notify() {
    for (const wake of this.waiting.splice(0)) wake()
  }

  write(data: string | Uint8Array): void {
    this.socket.write(data)
  }

  /** Waits until what was read matches `pattern` (or the connection closed); answers all read so far and forgets it. */
  async until(pattern: RegExp, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    while (!pattern.test(this.text) && !this.closed) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; read: ${JSON.stringify(this.text)}`)
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve)
        setTimeout(resolve, 50)
      })
    }
    const read = this.text
    this.text = ''
    return read
  }

  /**
   * An SMTP reply: lines up to the one whose code is followed by a space. What came after it in the
   * same read (a 421 sent straight after a 250, say) stays for the next read.
   */
  reply = async (timeoutMs?: number): Promise<string> => {
    const read = await this.until(/^\d{3} [^\r\n]*\r\n/m, timeoutMs)
    const end = /^\d{3} [^\r\n]*\r\n/m.exec(read)
    if (!end) return read
    const cut = end.index + end[0].length
    this.text = read.slice(cut) + this.text
    return read.slice(0, cut)
  }

  /** Resolves once the other side has closed the connection. */
  async closedByPeer(timeoutMs = 5000): Promise<string> {
    return this.until(/(?!)/, timeoutMs)
  }

  /** Says it has no more to write (a FIN), as a client that gives up does; reading goes on until the other side closes. */
  end(): void {
    this.socket.end()
  }

  close(): void {
    this.socket.destroy()
  }
}
