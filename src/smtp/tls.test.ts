import { afterAll, expect, test } from 'bun:test'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Config } from '../config/config-schema.ts'
import { loadTls } from './tls.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'mailstead-tls-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const selfSigned = async (hostname: string) => {
  const { cert, configured } = await loadTls({ dataDir, hostname, tlsCert: null, tlsKey: null } as unknown as Config)
  expect(configured).toBe(false)
  return new X509Certificate(cert)
}

test('the self-signed certificate is kept while the host name stays, and made again when it changes', async () => {
  const first = await selfSigned('vm')
  expect(first.checkHost('vm')).toBe('vm')
  expect((await selfSigned('vm')).fingerprint256).toBe(first.fingerprint256)
  const renamed = await selfSigned('mail.example.com')
  expect(renamed.fingerprint256).not.toBe(first.fingerprint256)
  expect(renamed.checkHost('mail.example.com')).toBe('mail.example.com')
  // And this machine's loopback, for an app beside the server that trusts the file.
  expect([renamed.checkHost('localhost'), renamed.checkIP('127.0.0.1'), renamed.checkIP('::1')]).toEqual(['localhost', '127.0.0.1', '::1'])
}, 30_000)
