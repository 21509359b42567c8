import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rootCertificates } from 'node:tls'
import { createTestCa, type TestCa } from '../../../test/helpers/test-ca.ts'
import { parseCaPem, readCaFile, trustedCas } from './trust.ts'

let ca: TestCa
let other: TestCa
const dir = mkdtempSync(join(tmpdir(), 'mailstead-trust-'))

beforeAll(async () => {
  ;[ca, other] = await Promise.all([createTestCa(), createTestCa()])
})

describe('a CA file', () => {
  test('every certificate of a PEM file is read, whatever comes around them', () => {
    const path = join(dir, 'cas.pem')
    writeFileSync(path, `# test CAs\n${ca.cert}\nsome text\r\n${other.cert}`)
    const certs = readCaFile(path)
    expect(certs).toHaveLength(2)
    expect(certs[0]!.trim()).toBe(ca.cert.trim())
    expect(certs[1]!.trim()).toBe(other.cert.trim())
  })

  test('a file that is missing, holds no certificate, or a broken one: an error that says so', () => {
    expect(() => readCaFile(join(dir, 'nowhere.pem'))).toThrow(/^cannot read the CA file .*nowhere\.pem: /)
    const empty = join(dir, 'key.pem')
    writeFileSync(empty, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')
    expect(() => readCaFile(empty)).toThrow(`${empty} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`)
    expect(() => parseCaPem(`${ca.cert}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`, 'cas.pem')).toThrow(/^certificate 2 of cas.pem cannot be read: /)
  })
})

describe('the CAs trusted', () => {
  test('extra CAs are added to the well-known ones, which a `ca` option would otherwise replace', () => {
    const trusted = trustedCas([ca.cert])!
    expect(trusted).toHaveLength(rootCertificates.length + 1)
    expect(trusted.at(-1)).toBe(ca.cert)
    expect(trusted).toEqual(expect.arrayContaining([...rootCertificates]))
  })

  test('with nothing extra, the default trust applies as it is', () => {
    expect(trustedCas(undefined)).toBeUndefined()
    expect(trustedCas([])).toBeUndefined()
  })
})
