import { connect as connectTcp, type Socket } from 'node:net'
import { connect as connectTls } from 'node:tls'
import { finding, type Finding } from '../lib/findings.ts'

export interface OutboundTarget {
  host: string
  port: number
  /** TLS from the first byte (a smarthost on 465), instead of a plain SMTP greeting. */
  tls?: boolean
  /** What the target stands for in the sentences: a well-known MX, or the smarthost. */
  role: 'mx' | 'smarthost'
}

/** What came of connecting to a mail server and waiting for its greeting. */
export type Greeting =
  | { kind: 'greeted'; line: string }
  | { kind: 'no-connection'; reason: string }
  | { kind: 'silent' }
  | { kind: 'closed' }

/**
 * Connects to `address` and reads the server's first reply line, all within `timeoutMs`: the
 * test that outbound SMTP is possible at all. A QUIT ends it politely.
 */
export function readGreeting(address: string, target: OutboundTarget, timeoutMs: number): Promise<Greeting> {
  return new Promise((resolve) => {
    let connected = false
    let finished = false
    let received = ''
    const socket: Socket = target.tls
      ? connectTls({ host: address, port: target.port, servername: target.host, rejectUnauthorized: false })
      : connectTcp({ host: address, port: target.port })
    const done = (greeting: Greeting) => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      socket.removeAllListeners('data')
      socket.on('error', () => {})
      if (greeting.kind === 'greeted') socket.end('QUIT\r\n')
      else socket.destroy()
      resolve(greeting)
    }
    const timer = setTimeout(
      () => done(connected ? { kind: 'silent' } : { kind: 'no-connection', reason: `no connection within ${timeoutMs / 1000} s` }),
      timeoutMs,
    )
    socket.once(target.tls ? 'secureConnect' : 'connect', () => (connected = true))
    socket.on('error', (error: NodeJS.ErrnoException) => done({ kind: 'no-connection', reason: connectionError(error) }))
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1')
      const end = received.indexOf('\n')
      if (end >= 0) done({ kind: 'greeted', line: received.slice(0, end).trim() })
    })
    socket.on('close', () => done({ kind: 'closed' }))
  })
}

function connectionError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused'
    case 'ETIMEDOUT':
      return 'the connection timed out'
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return 'no route to it'
    default:
      return error.message
  }
}

/** What the greeting (or its absence) says about sending mail out from here. */
export function judgeOutbound(target: OutboundTarget, address: string, greeting: Greeting, timeoutMs: number): Finding {
  const subject = `${target.host}:${target.port}`
  const where = `${target.host === address ? address : `${target.host} (${address})`} port ${target.port}`
  const fix =
    target.role === 'smarthost'
      ? 'Check the smarthost address and port (MAILSTEAD_SMARTHOST), and that the firewall lets this server reach it.'
      : 'Many VPS providers block outgoing port 25 on new servers: ask yours to open it, or send through a relay (MAILSTEAD_SMARTHOST).'
  const fails = (what: string) => finding('outbound-smtp', subject, 'failed', `Could not reach ${where}: ${what}.`, fix)
  switch (greeting.kind) {
    case 'greeted':
      if (/^220[ -]/.test(greeting.line)) return finding('outbound-smtp', subject, 'ok', `${where} answered "${greeting.line}": outbound SMTP works.`)
      return finding(
        'outbound-smtp',
        subject,
        'warning',
        `${where} answered "${greeting.line}" instead of a 220 greeting: the port is open, but that server turned this one away.`,
        'Read its reply: a blocklisted address or a missing PTR record is the usual reason.',
      )
    case 'no-connection':
      return fails(greeting.reason)
    case 'silent':
      return fails(`it connected, but no greeting came within ${timeoutMs / 1000} s (something between may be holding the connection)`)
    case 'closed':
      return fails('it closed the connection without a greeting')
  }
}

/** Resolves the target (through the configured DNS), connects to its first address and judges it. */
export async function checkOutbound(target: OutboundTarget, timeoutMs: number, resolve: (host: string) => Promise<string[]>): Promise<Finding> {
  const subject = `${target.host}:${target.port}`
  let addresses: string[]
  try {
    addresses = await resolve(target.host)
  } catch (error) {
    return finding('outbound-smtp', subject, 'unchecked', `Could not look up ${target.host}: ${(error as Error).message}.`)
  }
  const address = addresses[0]
  if (!address) return finding('outbound-smtp', subject, 'unchecked', `${target.host} has no address, so outbound SMTP could not be tried.`)
  return judgeOutbound(target, address, await readGreeting(address, target, timeoutMs), timeoutMs)
}
