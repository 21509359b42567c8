import { createSocket } from 'node:dgram'

/** Global addresses a probe "connects" a UDP socket to: a route lookup only, no packet is sent. */
const PROBE_TARGETS = { 4: '8.8.8.8', 6: '2001:4860:4860::8888' } as const
/** How long a probe's answer holds: routes change seldom, and a wrong answer costs one skipped family. */
const REMEMBER_MS = 5 * 60_000

/**
 * Whether this host has a route to the internet in an address family. A UDP socket connected to a
 * global address is given a source address when a route exists; without one it stays unbound
 * (`::`), or the connect fails. Asking this is how a host without IPv6 skips IPv6 addresses at
 * once, rather than learning it from connection errors (Bun reports every failed connect as
 * ECONNREFUSED, so those cannot tell "no route" from "nobody listening").
 */
export function createRouteProbe() {
  const known = new Map<4 | 6, { routed: boolean; at: number }>()

  function probe(family: 4 | 6): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = createSocket(family === 6 ? 'udp6' : 'udp4')
      const done = (routed: boolean) => {
        socket.close()
        resolve(routed)
      }
      socket.on('error', () => done(false))
      socket.connect(9, PROBE_TARGETS[family], () => {
        const source = socket.address().address
        done(source !== '::' && source !== '0.0.0.0')
      })
    })
  }

  return async function routed(family: 4 | 6): Promise<boolean> {
    const cached = known.get(family)
    if (cached && Date.now() - cached.at < REMEMBER_MS) return cached.routed
    const answer = await probe(family).catch(() => true)
    known.set(family, { routed: answer, at: Date.now() })
    return answer
  }
}

export type RouteProbe = ReturnType<typeof createRouteProbe>
