// @database-incidental: the delivery's SMTP and DNS with remote peers; the queue's rows are tested on both databases elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { freePort } from '../helpers/child.ts'
import { FakeMx } from '../helpers/fake-mx.ts'
import { startPolicyHost, servePolicy, type PolicyHost } from '../helpers/mta-sts-host.ts'
import { createTestCa, type TestCa } from '../helpers/test-ca.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let ca: TestCa
let policyPort: number
const servers: Array<{ stop(): Promise<void> } | { close(): void }> = []
let next = 30

beforeAll(async () => {
  ca = await createTestCa()
  const caFile = join(tmpdir(), `mailstead-test-ca-${process.pid}.pem`)
  writeFileSync(caFile, ca.cert)
  policyPort = await freePort()
  w = await createWorld({ settings: { 'delivery-ca-file': caFile, 'mta-sts-port': String(policyPort) } })
})

afterAll(async () => {
  for (const server of servers) 'stop' in server ? await server.stop() : server.close()
  await w.close()
})

interface Setup {
  /** The policy's mode and mx lines. */
  mode: 'enforce' | 'testing'
  mx?: string
  /** What the MX host's STARTTLS presents: a certificate of the test CA for its name, or none at all. */
  certificate: 'valid' | 'self-signed' | 'none'
}

/** A recipient domain with an MTA-STS policy, its MX host (on an address of its own) and its policy host. */
async function domainWith(setup: Setup) {
  const n = next++
  const domain = `sts${n}.example`
  const mxHost = `mx.${domain}`
  const tls = setup.certificate === 'valid' ? await ca.issue(mxHost) : setup.certificate === 'self-signed' ? await ca.selfSigned(mxHost) : undefined
  const mx = await new FakeMx({ starttls: setup.certificate !== 'none', ...(tls && { tls }) }).start(`127.0.0.${n}`, w.port)
  servers.push(mx)
  w.dns.records(domain, { type: 'MX', exchange: mxHost, priority: 10 })
  w.dns.records(mxHost, { type: 'A', address: `127.0.0.${n}` })
  const policy = `version: STSv1\nmode: ${setup.mode}\nmx: ${setup.mx ?? mxHost}\nmax_age: 86400\n`
  const host: PolicyHost = await startPolicyHost(domain, w.dns, ca, { address: `127.0.1.${n}`, port: policyPort, respond: servePolicy(policy) })
  servers.push(host)
  host.publish(`20261123T${n}`)
  return { domain, mx, host }
}

const send = async (to: string) =>
  (await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', text: 'Hello' } })).body.emailId as string
const last = async (id: string) => (await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).body.emailEvents.at(-1)

describe('a domain whose MTA-STS policy is enforce', () => {
  test('gets its mail over verified TLS; DELIVERED says the version, the cipher, the certificate verified and the policy applied', async () => {
    const { domain, mx, host } = await domainWith({ mode: 'enforce', certificate: 'valid' })
    const id = await send(`jane@${domain}`)
    await w.deliver()
    expect(await last(id)).toMatchObject({
      status: 'DELIVERED',
      data: { tls: { version: expect.stringMatching(/^TLSv1\.[23]$/), cipher: expect.any(String), verified: true }, mtaSts: { mode: 'enforce', applied: true } },
    })
    expect(mx.received.at(-1)).toMatchObject({ secure: true })
    expect(host.hits).toEqual([{ host: `mta-sts.${domain}:${policyPort}`, path: '/.well-known/mta-sts.txt' }])
  })

  test.each([
    ['a certificate no CA vouches for', { certificate: 'self-signed' } as const, /certificate|self.signed/i],
    ['no STARTTLS at all', { certificate: 'none' } as const, /STARTTLS/i],
  ])('an MX host with %s is deferred, never sent in plain text', async (_, setup, why) => {
    const { domain, mx } = await domainWith({ mode: 'enforce', ...setup })
    const id = await send(`jane@${domain}`)
    await w.deliver()
    const event = await last(id)
    expect(event).toMatchObject({ status: 'DELIVERY_DELAYED', data: { category: 'network' } })
    expect(event.data.response).toMatch(why)
    expect(mx.received).toHaveLength(0)
  })

  test('an MX host the policy does not name is not used', async () => {
    const { domain, mx } = await domainWith({ mode: 'enforce', mx: '*.elsewhere.example', certificate: 'valid' })
    const id = await send(`jane@${domain}`)
    await w.deliver()
    const event = await last(id)
    expect(event.status).toBe('DELIVERY_DELAYED')
    expect(event.data.response).toBe(`mx.${domain} skipped: not an MX host of ${domain}'s MTA-STS policy (mx: *.elsewhere.example)`)
    expect(mx.received).toHaveLength(0)
  })
})

describe('a domain whose MTA-STS policy is testing', () => {
  test('gets its mail as usual, and DELIVERED records what enforce would have refused', async () => {
    const { domain, mx } = await domainWith({ mode: 'testing', certificate: 'self-signed' })
    const id = await send(`jane@${domain}`)
    await w.deliver()
    expect(await last(id)).toMatchObject({
      status: 'DELIVERED',
      data: { tls: { verified: false }, mtaSts: { mode: 'testing', applied: false, failure: `mx.${domain}'s certificate is not valid for it` } },
    })
    expect(mx.received).toHaveLength(1)
  })
})

describe('a domain without MTA-STS', () => {
  test('gets its mail as usual; DELIVERED says there was no policy', async () => {
    const id = await send('jane@example.net')
    await w.deliver()
    expect(await last(id)).toMatchObject({ status: 'DELIVERED', data: { tls: null, mtaSts: null } })
  })
})
