import { networkInterfaces } from 'node:os'
import { addressRefusal } from '../lib/outbound/addresses.ts'

/**
 * The public addresses this server sends from: those configured (publicIps), else the public
 * unicast addresses of the machine's interfaces. Behind NAT there may be none found: the
 * self-checks then say to set MAILSTEAD_PUBLIC_IPS.
 */
export function serverIps(configured: readonly string[] | null, interfaces = networkInterfaces()): string[] {
  if (configured) return [...configured]
  const found = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((entry) => !entry.internal && addressRefusal(entry.address) === undefined)
    .map((entry) => entry.address.toLowerCase())
  return [...new Set(found)]
}
