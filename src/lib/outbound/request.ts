import http, { type IncomingHttpHeaders } from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { checkTarget, TargetRefused, type Target, type TargetOptions } from './target.ts'

export interface OutboundRequest {
  url: string
  method: string
  headers?: Record<string, string>
  body?: string
  /** The whole call: DNS, connecting, sending, and the response to its last byte. */
  timeoutMs: number
  /** Response bytes read at most; the connection is closed once they have come. */
  maxResponseBytes: number
}

export interface OutboundResult {
  /** A 2xx answer. */
  ok: boolean
  /** The response status, null when none came. */
  status: number | null
  durationMs: number
  /** Why the call did not succeed: refused target, network trouble, timeout, redirect, non-2xx. */
  error?: string
  /** The first `maxResponseBytes` of the response body at most, as UTF-8. */
  body: string
  /** The response's headers (names in lower case), when a response came. */
  headers?: IncomingHttpHeaders
  /** The body went on past `maxResponseBytes`: `body` is only its beginning. */
  truncated?: true
  /** The target itself was refused (a private address, a bad URL): trying again cannot help. */
  refused?: true
}

export interface OutboundOptions extends TargetOptions {
  /** Certificates to trust besides the system's (a private CA for internal targets; tests). */
  ca?: string | string[]
}

interface Exchange {
  status: number
  location?: string
  headers: IncomingHttpHeaders
  body: Buffer
  /** More than `maxResponseBytes` came. */
  truncated?: boolean
  /** Set when the deadline cut the response off after its status came. */
  error?: string
}

/**
 * Calls a URL that a user gave: the target is checked first (see checkTarget), then the
 * connection goes only to an address that was checked. Redirects are not followed, one deadline
 * covers everything, and no more than `maxResponseBytes` of the answer is read. Never throws:
 * every failure is a result with `error`.
 */
export async function sendRequest(request: OutboundRequest, options: OutboundOptions): Promise<OutboundResult> {
  const started = performance.now()
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), request.timeoutMs)
  const timedOut = new Promise<never>((_, reject) =>
    deadline.signal.addEventListener('abort', () => reject(new Error(`timed out after ${request.timeoutMs} ms`))),
  )
  timedOut.catch(() => {})
  const finish = (result: Omit<OutboundResult, 'durationMs'>): OutboundResult => ({
    ...result,
    durationMs: Math.round(performance.now() - started),
  })
  try {
    const target = await Promise.race([checkTarget(request.url, options), timedOut])
    const answer = await exchange(target, request, options.ca, deadline.signal)
    const body = answer.body.toString('utf8')
    const ok = answer.status >= 200 && answer.status < 300 && !answer.error
    return finish({
      ok,
      status: answer.status,
      body,
      headers: answer.headers,
      ...(answer.truncated && { truncated: true as const }),
      ...(ok ? {} : { error: answer.error ?? statusError(answer) }),
    })
  } catch (error) {
    return finish({ ok: false, status: null, body: '', error: describe(error), ...(error instanceof TargetRefused && { refused: true as const }) })
  } finally {
    clearTimeout(timer)
  }
}

/** One HTTP exchange over a fresh connection to one of the target's checked addresses. */
function exchange(target: Target, request: OutboundRequest, ca: OutboundOptions['ca'], deadline: AbortSignal): Promise<Exchange> {
  const { url, addresses } = target
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const body = request.body === undefined ? undefined : Buffer.from(request.body)
  return new Promise<Exchange>((resolve, reject) => {
    let settled = false
    const settle = (outcome: () => void) => {
      if (settled) return
      settled = true
      deadline.removeEventListener('abort', onDeadline)
      outcome()
      // Nothing more is wanted from this endpoint: close rather than drain whatever it still sends.
      req.destroy()
    }
    const chunks: Buffer[] = []
    let received = 0
    let status: number | null = null
    let location: string | undefined
    let headers: IncomingHttpHeaders = {}
    const collected = () => Buffer.concat(chunks).subarray(0, request.maxResponseBytes)
    const answer = (extra: Partial<Exchange> = {}): Exchange => ({ status: status!, location, headers, body: collected(), ...extra })
    const onDeadline = () => {
      const error = `timed out after ${request.timeoutMs} ms${status === null ? '' : ' while reading the response'}`
      settle(() => (status === null ? reject(new Error(error)) : resolve(answer({ error }))))
    }
    const req = (url.protocol === 'https:' ? https : http).request(
      {
        protocol: url.protocol,
        host,
        port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        path: url.pathname + url.search,
        method: request.method.toUpperCase(),
        headers: outgoingHeaders(request.headers, url.host, body),
        // A fresh connection every time: a pooled one might have been opened for another name.
        agent: false,
        lookup: pinnedLookup(addresses),
        // The certificate is checked against the host name, not the address connected to.
        ...(url.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
        ...(ca ? { ca } : {}),
      },
      (res) => {
        status = res.statusCode ?? 0
        location = res.headers.location
        headers = res.headers
        const done = () => settle(() => resolve(answer({ truncated: received > request.maxResponseBytes })))
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk)
          received += chunk.length
          // One byte past the limit tells a body that is too long from one that just fits.
          if (received > request.maxResponseBytes) done()
        })
        res.on('end', done)
        res.on('error', (error) => settle(() => resolve(answer({ error: `the response broke off: ${describe(error)}` }))))
      },
    )
    req.on('error', (error) => settle(() => reject(error)))
    if (deadline.aborted) return onDeadline()
    deadline.addEventListener('abort', onDeadline)
    req.end(body)
  })
}

/** Answers every lookup with the checked addresses, so DNS is never asked again between check and connect. */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }))
  return ((_host: string, options: { all?: boolean; family?: number | string }, callback: Function) => {
    const family = options?.family === 'IPv4' ? 4 : options?.family === 'IPv6' ? 6 : Number(options?.family ?? 0)
    const usable = family ? entries.filter((entry) => entry.family === family) : entries
    if (usable.length === 0) return callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }))
    if (options?.all) return callback(null, usable)
    callback(null, usable[0]!.address, usable[0]!.family)
  }) as LookupFunction
}

/** The caller's headers, with Host and Content-Length set from what is really sent. */
function outgoingHeaders(given: Record<string, string> = {}, host: string, body: Buffer | undefined) {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(given)) {
    if (!['host', 'content-length', 'transfer-encoding', 'connection'].includes(name.toLowerCase())) headers[name] = value
  }
  headers.host = host
  if (body) headers['content-length'] = String(body.length)
  return headers
}

function statusError({ status, location }: Exchange): string {
  if (status >= 300 && status < 400 && location) {
    // The endpoint chose this text: keep the error short whatever it sent.
    const where = location.length > 200 ? `${location.slice(0, 200)}...` : location
    return `the endpoint redirected (${status}) to ${where}; redirects are not followed`
  }
  return `the endpoint answered ${status}`
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && !error.message.includes(code) ? `${error.message} (${code})` : error.message
}
