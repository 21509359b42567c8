import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeCertificate } from '../../test/helpers/certificates.ts'
import { certificateFindings, judgeCertificate } from './certificate-check.ts'

const HOST = 'mail.example.com'
let good: { cert: string; key: string }

beforeAll(async () => {
  good = await makeCertificate([HOST, 'example.com'])
})

const judge = (input: { cert: string; key?: string }, selfSigned = false) =>
  judgeCertificate({ ...input, path: '/etc/tls/fullchain.pem', selfSigned }, HOST, Date.now())
/** A certificate alone, without its key: its names and dates are judged. */
const certOnly = async (names: string[], options: Parameters<typeof makeCertificate>[1] = {}) => ({ cert: (await makeCertificate(names, options)).cert })
const statuses = (findings: ReturnType<typeof judge>) => findings.map((f) => f.status)

describe("the SMTP listeners' certificate", () => {
  test('a certificate for the host name, its key beside it, valid for months, passes', () => {
    const findings = judge(good)
    expect(statuses(findings)).toEqual(['ok', 'ok', 'ok'])
    expect(findings[0]!.message).toBe('MAILSTEAD_TLS_KEY is the private key of the certificate.')
    expect(findings[1]!.message).toBe(`The certificate covers ${HOST} (DNS:${HOST}, DNS:example.com).`)
    expect(findings[2]!.message).toMatch(/^The certificate is valid until \d{4}-\d\d-\d\d \((89|90) days\)\.$/)
  })

  test('a wildcard covers the host name', async () => {
    expect(judge(await certOnly(['*.example.com']))[0]!.status).toBe('ok')
  })

  test('names that do not cover the host name fail', async () => {
    const [names] = judge(await certOnly(['other.example.org']))
    expect(names).toMatchObject({
      status: 'failed',
      message: `The certificate's names (DNS:other.example.org) do not cover ${HOST}, the server's name: clients that verify TLS refuse it.`,
    })
    expect(names!.fix).toContain('MAILSTEAD_TLS_CERT')
  })

  test('expiring within 14 days is a warning; expired, or not yet valid, fails', async () => {
    const [, soon] = judge(await certOnly([HOST], { toDays: 5 }))
    expect(soon).toMatchObject({ status: 'warning', message: expect.stringMatching(/^The certificate expires on \d{4}-\d\d-\d\d, in [45] days\.$/) })
    expect(soon!.fix).toContain('Renew it')
    const [, expired] = judge(await certOnly([HOST], { fromDays: -100, toDays: -2 }))
    expect(expired).toMatchObject({ status: 'failed', message: expect.stringMatching(/^The certificate expired on \d{4}-\d\d-\d\d\.$/) })
    const [, early] = judge(await certOnly([HOST], { fromDays: 3, toDays: 90 }))
    expect(early).toMatchObject({ status: 'failed', message: expect.stringMatching(/^The certificate is not valid before /) })
  })

  test('a key of another pair, a key that is not one, and a file that is no certificate fail', async () => {
    const other = await makeCertificate([HOST], { newKey: true })
    expect(judge({ cert: good.cert, key: other.key })[0]).toMatchObject({ status: 'failed', message: 'MAILSTEAD_TLS_KEY is not the private key of the certificate in MAILSTEAD_TLS_CERT.' })
    expect(judge({ cert: good.cert, key: 'not a key' })[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/^MAILSTEAD_TLS_KEY\ is\ not\ a\ PEM\ private\ key/) })
    expect(judge({ cert: 'not a certificate' })).toEqual([expect.objectContaining({ status: 'failed', message: expect.stringMatching(/^\/etc\/tls\/fullchain\.pem\ is\ not\ a\ PEM\ certificate/) })])
  })

  test('the generated self-signed certificate is a warning', () => {
    expect(judge({ cert: good.cert }, true)[0]).toMatchObject({ status: 'warning', message: expect.stringContaining('self-signed') })
  })

  test('read from the configured files; with none configured and none generated yet, says one will be', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailstead-cert-'))
    writeFileSync(join(dir, 'cert.pem'), good.cert)
    writeFileSync(join(dir, 'key.pem'), good.key)
    const configured = certificateFindings({ tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'key.pem'), dataDir: dir, hostname: HOST }, Date.now())
    expect(statuses(configured)).toEqual(['ok', 'ok', 'ok'])
    const missing = certificateFindings({ tlsCert: join(dir, 'gone.pem'), tlsKey: join(dir, 'key.pem'), dataDir: dir, hostname: HOST }, Date.now())
    expect(missing[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/^The\ certificate\ or\ its\ key\ cannot\ be\ read/) })
    const none = certificateFindings({ tlsCert: null, tlsKey: null, dataDir: dir, hostname: HOST }, Date.now())
    expect(none).toEqual([expect.objectContaining({ status: 'warning', message: 'No certificate is configured: a self-signed one is made at the first start.' })])
  })
})
