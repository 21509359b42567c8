import { afterAll, describe, expect, test } from 'bun:test'
import { createServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import { makeCertificate } from '../../test/helpers/certificates.ts'
import { checkOutbound, type OutboundTarget } from './outbound-check.ts'

const servers: Server[] = []
const sockets: Socket[] = []

/** A local server (TLS from the start with `tls`) that does `onConnect` with each connection; its port. */
async function listen(onConnect: (socket: Socket) => void, tls?: { cert: string; key: string }): Promise<number> {
  const server: Server = tls ? createTlsServer(tls) : createServer()
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.push(socket)
    socket.on('error', () => {})
    onConnect(socket)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as { port: number }).port
}

async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

afterAll(() => {
  for (const socket of sockets) socket.destroy()
  for (const server of servers) server.close()
})

const local = async (host: string) => (host === 'mx.test' ? ['127.0.0.1'] : [])
const target = (port: number, extra: Partial<OutboundTarget> = {}): OutboundTarget => ({ host: 'mx.test', port, role: 'mx', ...extra })

describe('the outbound SMTP check', () => {
  test('a 220 greeting means outbound SMTP works; the check says QUIT', async () => {
    let said = ''
    const port = await listen((socket) => {
      socket.write('220 mx.test ESMTP ready\r\n')
      socket.on('data', (chunk) => (said += chunk))
    })
    expect(await checkOutbound(target(port), 1000, local)).toEqual({
      check: 'outbound-smtp',
      subject: `mx.test:${port}`,
      status: 'ok',
      message: `mx.test (127.0.0.1) port ${port} answered "220 mx.test ESMTP ready": outbound SMTP works.`,
    })
    await Bun.sleep(20)
    expect(said).toBe('QUIT\r\n')
  })

  test('another greeting is a warning: the port is open, the server turned us away', async () => {
    const port = await listen((socket) => socket.end('554 5.7.1 your address is blocked\r\n'))
    const found = await checkOutbound(target(port), 1000, local)
    expect(found).toMatchObject({ status: 'warning', message: expect.stringContaining('answered "554 5.7.1 your address is blocked" instead of a 220 greeting') })
  })

  test('a closed port fails: connection refused, and how to get port 25 opened', async () => {
    const port = await closedPort()
    const found = await checkOutbound(target(port), 1000, local)
    expect(found).toMatchObject({ status: 'failed', message: `Could not reach mx.test (127.0.0.1) port ${port}: connection refused.` })
    expect(found.fix).toContain('MAILSTEAD_SMARTHOST')
  })

  test('a server that never greets fails within the timeout', async () => {
    const port = await listen(() => {})
    const started = performance.now()
    const found = await checkOutbound(target(port), 300, local)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(found).toMatchObject({
      status: 'failed',
      message: `Could not reach mx.test (127.0.0.1) port ${port}: it connected, but no greeting came within 0.3 s (something between may be holding the connection).`,
    })
  })

  test('a server that hangs up without a greeting fails', async () => {
    const port = await listen((socket) => socket.end())
    expect((await checkOutbound(target(port), 1000, local)).message).toBe(`Could not reach mx.test (127.0.0.1) port ${port}: it closed the connection without a greeting.`)
  })

  test('a target that does not resolve could not be checked', async () => {
    expect(await checkOutbound({ host: 'nowhere.test', port: 25, role: 'mx' }, 1000, local)).toMatchObject({ status: 'unchecked', message: 'nowhere.test has no address, so outbound SMTP could not be tried.' })
    const failing = async () => {
      throw new Error('DNS answered REFUSED for A nowhere.test')
    }
    expect(await checkOutbound({ host: 'nowhere.test', port: 25, role: 'mx' }, 1000, failing)).toMatchObject({
      status: 'unchecked',
      message: 'Could not look up nowhere.test: DNS answered REFUSED for A nowhere.test.',
    })
  })

  test('a smarthost on TLS from the start greets after the handshake', async () => {
    const port = await listen((socket) => socket.write('220 relay ready\r\n'), await makeCertificate(['mx.test']))
    const found = await checkOutbound(target(port, { tls: true, role: 'smarthost' }), 1000, local)
    expect(found).toMatchObject({ status: 'ok', message: `mx.test (127.0.0.1) port ${port} answered "220 relay ready": outbound SMTP works.` })
  })
})
