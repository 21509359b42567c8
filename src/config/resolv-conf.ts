import { readFileSync } from 'node:fs'
import type { HostPort } from './parsers.ts'

/** The name servers of /etc/resolv.conf; the local one when there are none (resolv.conf(5)). */
export function systemNameServers(path = '/etc/resolv.conf'): HostPort[] {
  let text = ''
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    // No resolv.conf: fall through to the documented default.
  }
  const servers = text
    .split('\n')
    .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
    .filter((address): address is string => Boolean(address))
    .map((address) => ({ host: address.replace(/%.*$/, ''), port: 53 }))
  return servers.length > 0 ? servers : [{ host: '127.0.0.1', port: 53 }]
}
