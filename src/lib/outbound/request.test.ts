import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls'
import { generate } from 'selfsigned'
import { pinnedLookup, sendRequest, type OutboundOptions, type OutboundRequest } from './request.ts'

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

/** A local HTTP server whose routes are set per test; it remembers every request it got. */
async function localServer(host = '127.0.0.1', port = 0) {
  const routes = new Map<string, Handler>()
  const hits: Array<{ path: string; method: string; headers: IncomingMessage['headers']; body: string }> = []
  let connections = 0
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      hits.push({ path: req.url!, method: req.method!, headers: req.headers, body })
      const handler = routes.get(req.url!.split('?')[0]!)
      handler ? handler(req, res, body) : res.writeHead(404).end('no route')
    })
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(port, host, resolve))
  return {
    server,
    routes,
    hits,
    get connections() {
      return connections
    },
    port: (server.address() as { port: number }).port,
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

let web: Awaited<ReturnType<typeof localServer>>
const trusted = (resolve: OutboundOptions['resolve'] = async () => ['127.0.0.1']): OutboundOptions => ({ allowPrivate: true, resolve })
const call = (path: string, extra: Partial<OutboundRequest> = {}, options = trusted()) =>
  sendRequest({ url: `http://hooks.test:${web.port}${path}`, method: 'POST', timeoutMs: 2000, maxResponseBytes: 64 * 1024, ...extra }, options)

/** What the endless route has written, and when its connection closed. */
const endless = { written: 0, closedAt: 0 }

beforeAll(async () => {
  web = await localServer()
  web.routes.set('/ok', (req, res, body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ got: body, method: req.method })))
  web.routes.set('/fail', (_, res) => res.writeHead(500).end('boom'))
  web.routes.set('/redirect', (_, res) => res.writeHead(302, { location: `http://127.0.0.1:${web.port}/secret` }).end('moved'))
  web.routes.set('/secret', (_, res) => res.end('the secret'))
  web.routes.set('/hang', () => {})
  web.routes.set('/broken', (_, res) => {
    res.writeHead(200, { 'content-length': '1000' })
    res.write('partial', () => setTimeout(() => res.destroy(), 20))
  })
  web.routes.set('/trickle', (_, res) => {
    res.writeHead(200)
    const timer = setInterval(() => res.write('.'), 50)
    res.on('close', () => clearInterval(timer))
  })
  web.routes.set('/endless', (_, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    const chunk = Buffer.alloc(64 * 1024, 'x')
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) endless.written += chunk.length
      if (!res.destroyed) res.once('drain', pump)
    }
    res.on('close', () => (endless.closedAt = performance.now()))
    pump()
  })
})

afterAll(() => web.close())

describe('sending a request', () => {
  test('a 2xx answer is ok, with its body; the method, headers and body go as given, Host names the host', async () => {
    const result = await call('/ok?x=1', { body: '{"event":"ping"}', headers: { 'content-type': 'application/json', 'x-extra': 'yes' } })
    expect(result).toMatchObject({ ok: true, status: 200, body: '{"got":"{\\"event\\":\\"ping\\"}","method":"POST"}' })
    expect(result.error).toBeUndefined()
    expect(result.durationMs).toBeGreaterThanOrEqual(0)
    const hit = web.hits.at(-1)!
    expect(hit.path).toBe('/ok?x=1')
    expect(hit.headers).toMatchObject({ host: `hooks.test:${web.port}`, 'x-extra': 'yes', 'content-length': '16' })
  })

  test('the response headers come with the result; a body that fits is not truncated', async () => {
    const result = await call('/ok', { body: 'x' })
    expect(result.headers?.['content-type']).toBe('application/json')
    expect(result.truncated).toBeUndefined()
  })

  test('a body of exactly maxResponseBytes is whole; one byte more is truncated', async () => {
    web.routes.set('/ten', (_, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('0123456789'))
    expect(await call('/ten', { maxResponseBytes: 10 })).toMatchObject({ ok: true, body: '0123456789' })
    expect((await call('/ten', { maxResponseBytes: 10 })).truncated).toBeUndefined()
    expect(await call('/ten', { maxResponseBytes: 9 })).toMatchObject({ ok: true, body: '012345678', truncated: true })
  })

  test('a 500 is a failure that keeps its status and body', async () => {
    expect(await call('/fail')).toMatchObject({ ok: false, status: 500, body: 'boom', error: 'the endpoint answered 500' })
  })

  test('a redirect is not followed: a failure that says where it pointed', async () => {
    const before = web.hits.filter((hit) => hit.path === '/secret').length
    const result = await call('/redirect')
    expect(result).toMatchObject({ ok: false, status: 302 })
    expect(result.error).toBe(`the endpoint redirected (302) to http://127.0.0.1:${web.port}/secret; redirects are not followed`)
    expect(web.hits.filter((hit) => hit.path === '/secret').length).toBe(before)
  })

  test('an endpoint that never answers is cut off at the deadline', async () => {
    const started = performance.now()
    const result = await call('/hang', { timeoutMs: 300 })
    expect(performance.now() - started).toBeLessThan(1000)
    expect(result).toMatchObject({ ok: false, status: null, error: 'timed out after 300 ms' })
  })

  test('an endpoint that trickles its body forever is cut off at the deadline, keeping what came', async () => {
    const started = performance.now()
    const result = await call('/trickle', { timeoutMs: 400 })
    expect(performance.now() - started).toBeLessThan(1200)
    expect(result).toMatchObject({ ok: false, status: 200, error: 'timed out after 400 ms while reading the response' })
    expect(result.body).toMatch(/^\.+$/)
  })

  test('an endless body: reading stops at maxResponseBytes, the connection is closed, well within the deadline', async () => {
    const started = performance.now()
    const result = await call('/endless', { maxResponseBytes: 1000, timeoutMs: 10_000 })
    const took = performance.now() - started
    expect(result).toMatchObject({ ok: true, status: 200, body: 'x'.repeat(1000), truncated: true })
    expect(took).toBeLessThan(2000)
    await Bun.sleep(200)
    expect(endless.closedAt).toBeGreaterThan(started)
    const writtenThen = endless.written
    await Bun.sleep(200)
    // The server has stopped writing: nobody is reading any more.
    expect(endless.written).toBe(writtenThen)
    expect(writtenThen).toBeLessThan(64 * 1024 * 1024)
  })

  test('a response that breaks off keeps its status and what came, and is not ok', async () => {
    const result = await call('/broken')
    expect(result).toMatchObject({ ok: false, status: 200 })
    expect(result.error).toBeDefined()
    expect(result.body).toStartWith('partial')
  })

  test('a slow DNS answer counts against the deadline', async () => {
    const started = performance.now()
    const result = await call('/ok', { timeoutMs: 200 }, trusted(() => new Promise(() => {})))
    expect(performance.now() - started).toBeLessThan(1000)
    expect(result).toMatchObject({ ok: false, status: null, error: 'timed out after 200 ms' })
  })
})

describe('trouble is a result, never an exception', () => {
  test('a refused target: nothing is sent', async () => {
    const before = web.connections
    const result = await sendRequest(
      { url: `http://127.0.0.1:${web.port}/ok`, method: 'POST', timeoutMs: 1000, maxResponseBytes: 100 },
      { allowPrivate: false, resolve: async () => [] },
    )
    expect(result).toMatchObject({ ok: false, status: null, body: '' })
    expect(result.error).toStartWith('127.0.0.1 is a loopback address; set MAILSTEAD_WEBHOOK_ALLOW_PRIVATE_TARGETS=true')
    expect(web.connections).toBe(before)
  })

  test('a refusal names the setting the caller gives', async () => {
    const result = await call('/ok', {}, { allowPrivate: false, resolve: async () => ['10.0.0.1'], privateHint: 'set MAILSTEAD_OTHER=true' })
    expect(result.error).toBe('hooks.test resolves to 10.0.0.1, a private address; set MAILSTEAD_OTHER=true')
  })

  test('a host name resolving to a private address is refused before connecting', async () => {
    const before = web.connections
    const result = await call('/ok', {}, { allowPrivate: false, resolve: async () => ['127.0.0.1'] })
    expect(result.error).toStartWith('hooks.test resolves to 127.0.0.1, a loopback address')
    expect(web.connections).toBe(before)
  })

  test('a closed port', async () => {
    const closed = await localServer()
    closed.close()
    const result = await sendRequest({ url: `http://hooks.test:${closed.port}/`, method: 'GET', timeoutMs: 2000, maxResponseBytes: 100 }, trusted())
    expect(result).toMatchObject({ ok: false, status: null })
    expect(result.error).toContain('ECONNREFUSED')
  })

  test('DNS that fails, and a name without addresses', async () => {
    const failing = await call('/ok', {}, trusted(async () => Promise.reject(new Error('No DNS server answered'))))
    expect(failing).toMatchObject({ ok: false, status: null, error: 'No DNS server answered' })
    expect((await call('/ok', {}, trusted(async () => []))).error).toBe('hooks.test has no address (no A or AAAA record)')
  })

  test('a header value that HTTP cannot carry, and a method that is not a token', async () => {
    expect((await call('/ok', { headers: { 'x-bad': 'a\r\nInjected: yes' } })).ok).toBe(false)
    expect((await call('/ok', { method: 'GET /x' })).ok).toBe(false)
  })
})

describe('pinning the checked address', () => {
  test('the connection goes to the address checked, whatever DNS answers afterwards', async () => {
    // Two servers on one port, at 127.0.0.1 and 127.0.0.2. DNS answers the first address once, then
    // the second (a rebinding attack); the system resolver knows nothing of rebind.test. Reaching
    // the first server proves the connection used the checked answer and no other lookup.
    const vetted = await localServer('127.0.0.1')
    const rebound = await localServer('127.0.0.2', vetted.port)
    vetted.routes.set('/hook', (_, res) => res.end('vetted'))
    rebound.routes.set('/hook', (_, res) => res.end('rebound'))
    const answers: string[] = []
    const resolve = async () => {
      answers.push(answers.length === 0 ? '127.0.0.1' : '127.0.0.2')
      return [answers.at(-1)!]
    }
    try {
      const request = { url: `http://rebind.test:${vetted.port}/hook`, method: 'GET', timeoutMs: 2000, maxResponseBytes: 100 }
      expect(await sendRequest(request, { allowPrivate: true, resolve })).toMatchObject({ ok: true, body: 'vetted' })
      expect(answers).toEqual(['127.0.0.1'])
      expect(vetted.hits).toHaveLength(1)
      expect(rebound.connections).toBe(0)
    } finally {
      vetted.close()
      rebound.close()
    }
  })

  test('each call asks DNS once, when checking, and never again to connect', async () => {
    let asked = 0
    await call('/ok', {}, trusted(async () => (asked++, ['127.0.0.1'])))
    expect(asked).toBe(1)
  })

  test('the lookup handed to the connection answers only the checked addresses', () => {
    const lookup = pinnedLookup(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])
    const answers: unknown[] = []
    lookup('anything.example', { all: true }, (_error, addresses) => answers.push(addresses))
    lookup('anything.example', { family: 6 }, (_error, address, family) => answers.push([address, family]))
    lookup('anything.example', {}, (_error, address, family) => answers.push([address, family]))
    expect(answers).toEqual([
      [{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }],
      ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 6],
      ['93.184.215.14', 4],
    ])
  })
})

describe('https to a pinned address', () => {
  let tls: TlsServer
  let port = 0
  let cert = ''
  const serverNames: string[] = []

  beforeAll(async () => {
    const made = await generate([{ name: 'commonName', value: 'hooks.test' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'hooks.test' }] }],
    } as never)
    cert = made.cert
    tls = createTlsServer({ key: made.private, cert }, (socket) => {
      serverNames.push(String((socket as { servername?: string }).servername))
      socket.on('error', () => {})
      socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 6\r\nconnection: close\r\n\r\nsecure'))
    })
    tls.on('tlsClientError', () => {})
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve))
    port = (tls.address() as { port: number }).port
  })

  afterAll(() => tls.close())

  const secure = (host: string, ca?: string) =>
    sendRequest({ url: `https://${host}:${port}/hook`, method: 'POST', body: '{}', timeoutMs: 3000, maxResponseBytes: 100 }, { ...trusted(), ca })

  test('names the host in SNI and accepts a certificate for that host, though it connects to an address', async () => {
    expect(await secure('hooks.test', cert)).toMatchObject({ ok: true, status: 200, body: 'secure' })
    expect(serverNames.at(-1)).toBe('hooks.test')
  })

  test('refuses a certificate made for another host name', async () => {
    const result = await secure('other.test', cert)
    expect(result).toMatchObject({ ok: false, status: null })
    expect(result.error).toMatch(/altname|hostname|ERR_TLS_CERT_ALTNAME_INVALID/i)
  })

  test('refuses a certificate that nothing trusted signed', async () => {
    const result = await secure('hooks.test')
    expect(result).toMatchObject({ ok: false, status: null })
    expect(result.error).toMatch(/self[- ]signed|certificate/i)
  })
})
