import { dkimVerify } from 'mailauth/lib/dkim/verify'
import { createResolver } from '../../src/dns/resolver.ts'
import type { Logger } from '../../src/lib/logger.ts'
import { createTestApp, type TestApp } from './app.ts'
import type { ManualClock } from './clock.ts'
import { publishRecords } from './domains.ts'
import type { FakeDns } from './fake-dns.ts'
import type { FakeMx, FakeMxOptions } from './fake-mx.ts'
import { startRecipients } from './recipients.ts'

export const HOSTNAME = 'mx.mailstead.test'

export interface World {
  t: TestApp
  dns: FakeDns
  /** The receiving server of recipients at example.net (127.0.0.2). */
  mx: FakeMx
  key: string
  projectId: number
  domain: { id: number; name: string; dnsRecords: any[] }
  /** Another loopback address on the delivery port, for more receiving servers. */
  port: number
  close(): Promise<void>
  /** Runs the delivery loop until nothing more is due. */
  deliver(): Promise<void>
  /** Verifies a received message's DKIM signatures against the fake DNS. */
  dkim(raw: Buffer): Promise<Array<{ status: string; domain: string; algorithm: string }>>
}

/**
 * A sender with a verified domain (sender.example.com) and the world it sends to: fake DNS, and a
 * fake MX for example.net on 127.0.0.2. More MX servers share its port on 127.0.0.3 and up.
 */
export async function createWorld(
  options: {
    mx?: FakeMxOptions
    settings?: Record<string, string>
    clock?: ManualClock
    /** Where the app's log lines go (none by default). */
    logger?: Logger
    /** Start the whole app: HTTP, SMTP listeners, timers. */
    started?: boolean
  } = {},
): Promise<World> {
  const recipients = await startRecipients(options.mx)
  const { dns, mx } = recipients
  const t = await createTestApp(
    {
      ...recipients.settings,
      hostname: HOSTNAME,
      'smtp-timeout-seconds': '1',
      'delivery-attempt-timeout-seconds': '5',
      'send-rate-per-second': '10000',
      ...options.settings,
    },
    { ...(options.clock && { clock: options.clock }), ...(options.logger && { logger: options.logger }) },
  )
  const project = await t.project('Sender')
  const created = await t.request('POST', '/api/v1/domains', { key: project.secretKey, body: { name: 'sender.example.com', region: 'us-east-1' } })
  publishRecords(dns, created.body.dnsRecords)
  await t.app.checker.check(created.body.id)
  if (options.started) await t.app.start()
  else await t.app.deliveries.start()
  const resolver = createResolver([{ host: '127.0.0.1', port: dns.port }], 500)
  return {
    t,
    dns,
    mx,
    key: project.secretKey,
    projectId: project.id,
    domain: created.body,
    port: mx.port,
    deliver: () => t.app.deliveries.drain(),
    async dkim(raw) {
      const result = await dkimVerify(raw, {
        resolver: async (name: string, type: string) =>
          (await resolver.query(name, type as 'TXT')).answers.filter((r) => r.type === type).map((r) => [r.value]),
      } as never)
      return result.results.map((r: any) => ({ status: r.status.result, domain: r.signingDomain, algorithm: r.algo }))
    },
    async close() {
      await t.close()
      await mx.stop()
      await dns.stop()
    },
  }
}
