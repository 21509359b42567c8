/** `192.0.2.5:25`, `[2001:db8::5]:25`. */
export const endpoint = (address: string, port: number) => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`)

/**
 * What happened to each MX host and address during one attempt, in words, for a deferral's
 * reason: `mx1.example.com AAAA REFUSED; 192.0.2.5:25 connection refused; mx2.example.com
 * 192.0.2.6:25 421 4.7.0 try later`. A note carries its host's name unless the note before it
 * was about the same host.
 */
export class Trace {
  readonly #notes: Array<{ host: string; text: string; named: boolean }> = []

  /** A note that names its host itself (a DNS lookup: `mx1.example.com AAAA REFUSED`). */
  host(host: string, text: string): void {
    this.#notes.push({ host, text, named: true })
  }

  /** What came of one address of a host. */
  address(host: string, address: string, port: number, what: string): void {
    this.#notes.push({ host, text: `${endpoint(address, port)} ${what}`, named: false })
  }

  get empty(): boolean {
    return this.#notes.length === 0
  }

  toString(): string {
    return this.#notes
      .map((note, i) => (note.named || this.#notes[i - 1]?.host === note.host ? note.text : `${note.host} ${note.text}`))
      .join('; ')
  }
}

const ERRNO_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  EADDRNOTAVAIL: 'no local address to connect from',
  EAFNOSUPPORT: 'address family not supported here',
  EPIPE: 'connection broken',
}

/** The system error code inside a network error (`connect ECONNREFUSED 127.0.0.3:25`). */
export const errnoOf = (error: { code?: string; message?: string }) =>
  /\b(E[A-Z]{4,})\b/.exec(error.message ?? '')?.[1] ?? (error.code && ERRNO_WORDS[error.code] ? error.code : undefined)

/** A network error in a few words: the server's reply when there was one, else what the socket said. */
export function describeFailure(error: { code?: string; message?: string; response?: string }): string {
  // TLS that could not be had: a STARTTLS the server refused, or a handshake or certificate that failed.
  if (error.code === 'ETLS') return `STARTTLS failed: ${(error.response ?? error.message ?? '').replace(/\r?\n/g, ' ').trim()}`
  if (error.response) return error.response.replace(/\r?\n/g, ' ').trim()
  const errno = errnoOf(error)
  if (errno && ERRNO_WORDS[errno]) return ERRNO_WORDS[errno]
  return (error.message ?? 'failed').replace(/\r?\n/g, ' ').trim()
}
