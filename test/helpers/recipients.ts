import { FakeDns, FAKE_DNS_TIMEOUT_MS } from './fake-dns.ts'
import { FakeMx, type FakeMxOptions } from './fake-mx.ts'

/** Where test mail goes: fake DNS, and the fake MX of example.net on 127.0.0.2. */
export interface Recipients {
  dns: FakeDns
  /** The receiving server of recipients at example.net; more servers may share its port on 127.0.0.3 and up. */
  mx: FakeMx
  /** The app's settings that send its DNS queries and deliveries here, and nowhere else. */
  settings: Record<string, string>
  stop(): Promise<void>
}

/** Starts the fake DNS and example.net's fake MX (which behaves as `mx` says). */
export async function startRecipients(mx: FakeMxOptions = {}): Promise<Recipients> {
  const dns = await new FakeDns().start()
  const server = await new FakeMx(mx).start('127.0.0.2')
  dns.records('example.net', { type: 'MX', exchange: 'mx.example.net', priority: 10 })
  dns.records('mx.example.net', { type: 'A', address: '127.0.0.2' })
  return {
    dns,
    mx: server,
    settings: {
      'dns-servers': dns.address,
      'dns-timeout-ms': String(FAKE_DNS_TIMEOUT_MS),
      'delivery-port': String(server.port),
      'delivery-allow-private-targets': 'true',
    },
    async stop() {
      await server.stop()
      await dns.stop()
    },
  }
}
