import { describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, describeConfig, loadConfig } from './load.ts'

const tempDir = () => mkdtempSync(join(tmpdir(), 'mailstead-config-'))

describe('loadConfig', () => {
  test("defaults give a server on 127.0.0.1:3000 with its data in the checkout's data folder", () => {
    const { config } = loadConfig({ env: { MAILSTEAD_SECRET: 'x'.repeat(32) } })
    // Run inside the checkout: its data folder (src/config/data-dir.ts).
    expect(config).toMatchObject({ dataDir: join(import.meta.dir, '..', '..', 'data'), httpHost: '127.0.0.1', httpPort: 3000, rateLimitPerMinute: 1000, logLevel: 'info' })
    expect(config.publicUrl).toBe('http://127.0.0.1:3000')
    expect(config.dnsServers.length).toBeGreaterThan(0)
    expect(Object.isFrozen(config)).toBe(true)
  })

  test('file < environment < flags', () => {
    const dir = tempDir()
    const file = join(dir, 'config.json')
    writeFileSync(file, JSON.stringify({ httpPort: 4000, httpHost: '0.0.0.0', logLevel: 'warn', dataDir: dir }))
    const { config, sources } = loadConfig({
      file,
      env: { MAILSTEAD_HTTP_PORT: '5000', MAILSTEAD_LOG_LEVEL: 'debug' },
      flags: { 'http-port': '6000' },
    })
    expect(config.httpPort).toBe(6000)
    expect(config.logLevel).toBe('debug')
    expect(config.httpHost).toBe('0.0.0.0')
    expect(sources).toMatchObject({ httpPort: 'flag', logLevel: 'environment', httpHost: 'file', rateLimitPerMinute: 'default' })
  })

  test.each([
    [{ MAILSTEAD_HTTP_PORT: 'abc' }, 'httpPort', 'an integer from 0 to 65535'],
    [{ MAILSTEAD_HTTP_PORT: '70000' }, 'httpPort', 'an integer from 0 to 65535'],
    [{ MAILSTEAD_PUBLIC_URL: 'ftp://x' }, 'publicUrl', 'http:// or https:// URL'],
    [{ MAILSTEAD_HOSTNAME: 'not a host' }, 'hostname', 'host name'],
    [{ MAILSTEAD_DNS_SERVERS: '1.1.1.1:99999' }, 'dnsServers', 'host[:port]'],
    [{ MAILSTEAD_LOG_LEVEL: 'loud' }, 'logLevel', 'debug, info, warn, error'],
    [{ MAILSTEAD_SECRET: 'short' }, 'secret', 'at least 32 characters'],
  ])('a bad value stops with a message naming the setting and what is allowed (%j)', (env, setting, allowed) => {
    expect(() => loadConfig({ env: { MAILSTEAD_SECRET: 'x'.repeat(32), ...env } })).toThrow(ConfigError)
    try {
      loadConfig({ env: { MAILSTEAD_SECRET: 'x'.repeat(32), ...env } })
    } catch (error) {
      expect((error as Error).message).toContain(setting)
      expect((error as Error).message).toContain(allowed)
      expect((error as Error).message).not.toContain('short')
    }
  })

  test('an unknown key in the file is refused', () => {
    const file = join(tempDir(), 'config.json')
    writeFileSync(file, JSON.stringify({ httpPrt: 1 }))
    expect(() => loadConfig({ file })).toThrow('unknown setting "httpPrt"')
  })

  test('dns servers take host[:port] lists, IPv6 included', () => {
    const { config } = loadConfig({ env: { MAILSTEAD_SECRET: 'x'.repeat(32), MAILSTEAD_DNS_SERVERS: '127.0.0.1:5353, ::1, [::1]:53, ns.example.com' } })
    expect(config.dnsServers).toEqual([
      { host: '127.0.0.1', port: 5353 },
      { host: '::1', port: 53 },
      { host: '::1', port: 53 },
      { host: 'ns.example.com', port: 53 },
    ])
  })

  test('without MAILSTEAD_SECRET a secret is generated once into the data directory', () => {
    const dataDir = join(tempDir(), 'data')
    const first = loadConfig({ flags: { 'data-dir': dataDir } }).config.secret
    const second = loadConfig({ flags: { 'data-dir': dataDir } }).config.secret
    expect(first.length).toBeGreaterThanOrEqual(32)
    expect(second).toBe(first)
    expect(readFileSync(join(dataDir, 'secret'), 'utf8').trim()).toBe(first)
    expect(statSync(join(dataDir, 'secret')).mode & 0o777).toBe(0o600)
  })

  test('durations and relays are read in their own notation', () => {
    const { config } = loadConfig({
      env: {
        MAILSTEAD_SECRET: 'x'.repeat(32),
        MAILSTEAD_DELIVERY_RETRY_SCHEDULE: '30s, 2m,1h,1d',
        MAILSTEAD_SMARTHOST: 'smtps://user%40x:p%3Ass@relay.example.com',
      },
    })
    expect(config.deliveryRetrySchedule).toEqual([30_000, 120_000, 3_600_000, 86_400_000])
    expect(config.smarthost).toEqual({ host: 'relay.example.com', port: 465, secure: true, auth: { user: 'user@x', pass: 'p:ss' } })
    for (const bad of ['', '1x', '0m', '1m,,2m']) {
      expect(() => loadConfig({ env: { MAILSTEAD_SECRET: 'x'.repeat(32), MAILSTEAD_DELIVERY_RETRY_SCHEDULE: bad || ' ' } })).toThrow('durations')
    }
    expect(() => loadConfig({ env: { MAILSTEAD_SECRET: 'x'.repeat(32), MAILSTEAD_SMARTHOST: 'http://relay' } })).toThrow('smtp://')
  })

  test('delivery trust and MTA-STS: private targets off, no extra CA, policies on port 443 unless told', () => {
    const secret = { MAILSTEAD_SECRET: 'x'.repeat(32) }
    expect(loadConfig({ env: secret }).config).toMatchObject({ deliveryAllowPrivateTargets: false, deliveryCaFile: null, mtaStsPort: 443 })
    const { config } = loadConfig({
      env: { ...secret, MAILSTEAD_DELIVERY_ALLOW_PRIVATE_TARGETS: 'true', MAILSTEAD_DELIVERY_CA_FILE: '/etc/mailstead/ca.pem', MAILSTEAD_MTA_STS_PORT: '8443' },
    })
    expect(config).toMatchObject({ deliveryAllowPrivateTargets: true, deliveryCaFile: '/etc/mailstead/ca.pem', mtaStsPort: 8443 })
    expect(() => loadConfig({ env: { ...secret, MAILSTEAD_MTA_STS_PORT: '0' } })).toThrow('an integer from 1 to 65535')
  })

  test('describeConfig masks secrets', () => {
    const loaded = loadConfig({ env: { MAILSTEAD_SECRET: 's3cret-'.repeat(6), MAILSTEAD_SMARTHOST: 'smtp://u:s3cret-pw@relay.example.com:2525' } })
    const secret = describeConfig(loaded).find((s) => s.key === 'secret')!
    expect(secret.value).toBe('********')
    expect(JSON.stringify(describeConfig(loaded))).not.toContain('s3cret')
    expect(describeConfig(loaded).find((s) => s.key === 'smarthost')!.value).toBe('********')
  })
})
