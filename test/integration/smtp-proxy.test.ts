// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { RawSocket } from '../helpers/raw-socket.ts'
import { createWorld, type World } from '../helpers/world.ts'

// The load balancer is 127.0.0.1; 127.0.0.2 connects directly. One connection a client.
let w: World
const ports = { mx: 0, relay: 0 }
const opened: RawSocket[] = []

beforeAll(async () => {
  w = await createWorld({
    started: true,
    settings: { 'mx-port': '0', 'relay-port': '0', 'relay-tls-port': 'off', 'smtp-proxy-from': '127.0.0.1', 'smtp-max-connections-per-ip': '1' },
  })
  const listeners = w.t.app.listeners()!
  Object.assign(ports, { mx: listeners.mx.port, relay: listeners.relay.port })
})

afterAll(async () => {
  for (const socket of opened) socket.close()
  await w.close()
})

/** A connection through the balancer for `client`: the PROXY header first, then the server's greeting. */
async function throughBalancer(port: number, client: string) {
  const socket = await RawSocket.open(port, '127.0.0.1', '127.0.0.1')
  opened.push(socket)
  socket.write(`PROXY TCP4 ${client} 127.0.0.1 40000 ${port}\r\n`)
  return { socket, greeting: await socket.reply() }
}

describe('behind a load balancer that speaks the PROXY protocol (smtpProxyFrom)', () => {
  test.each([['the MX listener', 'mx'], ['the relay', 'relay']] as const)('%s counts each client its header names, not the balancer', async (_, name) => {
    const first = await throughBalancer(ports[name], '203.0.113.1')
    const second = await throughBalancer(ports[name], '203.0.113.2')
    expect([first.greeting.slice(0, 3), second.greeting.slice(0, 3)]).toEqual(['220', '220'])
    const again = await throughBalancer(ports[name], '203.0.113.1')
    expect(again.greeting).toMatch(/^421 .*Too many connections from your address/)
    for (const { socket } of [first, second]) {
      socket.write('QUIT\r\n')
      await socket.closedByPeer()
    }
  })

  test('a peer that is not a listed balancer is its own client and sends no header', async () => {
    const socket = await RawSocket.open(ports.mx, '127.0.0.1', '127.0.0.2')
    opened.push(socket)
    expect(await socket.reply()).toMatch(/^220 /)
    socket.write('QUIT\r\n')
    await socket.closedByPeer()
  })
})
