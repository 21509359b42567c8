import { isIP } from 'node:net'
import { addressRefusal } from './addresses.ts'

/**
 * Said with every refusal of an address, unless the caller names its own setting
 * (`privateHint`): the operator who reads the refusal needs the way out, and only this module
 * knows when to offer it.
 */
export const ALLOW_PRIVATE_HINT = 'set MAILSTEAD_WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow private targets'

/** A URL that must not be called, whatever DNS or the endpoint do: retrying will not help. */
export class TargetRefused extends Error {
  override name = 'TargetRefused'
}

export interface TargetOptions {
  /** Let calls reach loopback, private and other non-public addresses (a trusted network). */
  allowPrivate: boolean
  /** The A and AAAA addresses of a host name; empty when it has none. */
  resolve: (host: string) => Promise<string[]>
  /** How to allow private targets, said with each refusal of one (default: ALLOW_PRIVATE_HINT). */
  privateHint?: string
}

export interface Target {
  url: URL
  /** Every address the host name resolved to (or the IP literal), each checked: connect only to these. */
  addresses: string[]
}

/**
 * Checks that `url` may be called: http or https, no credentials, and every address it leads to
 * public (unless `allowPrivate`). Host names are resolved once, here, and the caller must connect
 * only to the addresses returned, so an answer that changes later (DNS rebinding) cannot matter.
 * Throws TargetRefused for what is refused, and what `resolve` throws when DNS fails.
 */
export async function checkTarget(url: string, options: TargetOptions): Promise<Target> {
  const parsed = parse(url)
  // WHATWG parsing has already turned 2130706433, 0x7f.1 and 0177.0.0.1 into 127.0.0.1.
  const host = parsed.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) {
    vet(host, host, options)
    return { url: parsed, addresses: [host] }
  }
  if (!options.allowPrivate && isLocalhost(host)) throw refusal(`${host} is a loopback name`, options)
  const addresses = await options.resolve(host)
  if (addresses.length === 0) throw new Error(`${host} has no address (no A or AAAA record)`)
  for (const address of addresses) vet(address, host, options)
  return { url: parsed, addresses: [...addresses] }
}

function parse(url: string): URL {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new TargetRefused(`${JSON.stringify(url)} is not a valid URL`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TargetRefused(`${parsed.protocol} URLs are refused: only http: and https: may be called`)
  }
  if (parsed.username || parsed.password) {
    throw new TargetRefused('URLs with credentials (user:password@) are refused: send credentials in a header')
  }
  if (!parsed.hostname) throw new TargetRefused(`${url} has no host`)
  return parsed
}

/** Throws when `address`, which `host` stands for, is not to be called. */
function vet(address: string, host: string, options: TargetOptions): void {
  if (!isIP(address.replace(/%.*$/, ''))) throw new TargetRefused(`${host} resolved to ${JSON.stringify(address)}, which is not an IP address`)
  if (options.allowPrivate) return
  const kind = addressRefusal(address)
  if (!kind) return
  throw refusal(host === address ? `${address} is ${kind}` : `${host} resolves to ${address}, ${kind}`, options)
}

const refusal = (reason: string, options: TargetOptions) => new TargetRefused(`${reason}; ${options.privateHint ?? ALLOW_PRIVATE_HINT}`)

/** RFC 6761: localhost and its subdomains are the machine itself, whatever a resolver says. */
const isLocalhost = (host: string) => /(^|\.)localhost\.?$/i.test(host)
