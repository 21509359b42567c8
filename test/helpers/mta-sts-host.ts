import { createServer, type Server } from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FakeDns } from './fake-dns.ts'
import type { TestCa } from './test-ca.ts'

export type PolicyResponder = (req: IncomingMessage, res: ServerResponse) => void

/** A policy answered as a policy host should: 200, text/plain. */
export const servePolicy =
  (text: string, contentType = 'text/plain; charset=utf-8'): PolicyResponder =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': contentType }).end(text)

export interface PolicyHost {
  port: number
  /** Every request it got: the Host header and path. */
  hits: Array<{ host: string | undefined; path: string }>
  /** How it answers; change it at will. */
  respond: PolicyResponder
  /** Publishes (or replaces) the `_mta-sts` TXT record, and the A record of the policy host. */
  publish(id: string | string[]): void
  close(): void
}

export interface PolicyHostOptions {
  /** The certificate it presents: signed by the CA for mta-sts.<domain> (the default), or not valid. */
  certificate?: 'valid' | 'expired' | 'self-signed' | 'wrong-name'
  respond?: PolicyResponder
  /** Where it listens and what the A record says: 127.0.0.1 unless told. */
  address?: string
  /** The port it listens on (the server's mtaStsPort): a free one unless told. */
  port?: number
}

/**
 * The HTTPS policy host of `domain` (mta-sts.<domain>) for tests, on a loopback address and a free
 * port, with a certificate from the test CA. Its A record and the `_mta-sts` TXT record go into
 * the fake DNS with `publish`.
 */
export async function startPolicyHost(domain: string, dns: FakeDns, ca: TestCa, options: PolicyHostOptions = {}): Promise<PolicyHost> {
  const name = `mta-sts.${domain}`
  const address = options.address ?? '127.0.0.1'
  const certificate = options.certificate ?? 'valid'
  const issued =
    certificate === 'self-signed'
      ? await ca.selfSigned(name)
      : await ca.issue(certificate === 'wrong-name' ? `mta-sts.elsewhere.${domain}` : name, { expired: certificate === 'expired' })
  const hits: PolicyHost['hits'] = []
  const host: PolicyHost = {
    port: 0,
    hits,
    respond: options.respond ?? ((_req, res) => res.writeHead(404).end()),
    publish(id) {
      const ids = typeof id === 'string' ? [id] : id
      dns.records(`_mta-sts.${domain}`, ...ids.map((value) => ({ type: 'TXT' as const, data: value.startsWith('v=') ? value : `v=STSv1; id=${value};` })))
      dns.records(name, { type: 'A', address })
    },
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
  const server: Server = createServer({ key: issued.key, cert: issued.cert }, (req, res) => {
    hits.push({ host: req.headers.host, path: req.url! })
    host.respond(req, res)
  })
  server.on('tlsClientError', () => {})
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, address, resolve))
  host.port = (server.address() as { port: number }).port
  return host
}
