import { X509Certificate } from 'node:crypto'
import { existsSync, readFileSync, unwatchFile, watchFile, writeFileSync } from 'node:fs'
import { makePrivateDir } from '../lib/files.ts'
import { join } from 'node:path'
import { generate } from 'selfsigned'
import { ConfigError } from '../config/load.ts'
import type { Config } from '../config/config-schema.ts'
import type { Logger } from '../lib/logger.ts'

export interface TlsMaterial {
  key: string
  cert: string
  /** The operator's certificate, as opposed to the generated self-signed one. */
  configured: boolean
}

/**
 * The certificate the SMTP listeners present: the configured one, or else a self-signed one
 * generated into the data directory and kept while it names this server's host name. A new
 * hostname gets a new certificate: one made at the first start under the machine's name would
 * otherwise be presented for ever after MAILSTEAD_HOSTNAME is set.
 */
export async function loadTls(config: Config): Promise<TlsMaterial> {
  if (config.tlsCert && config.tlsKey) return { ...readPair(config.tlsCert, config.tlsKey), configured: true }
  const dir = join(config.dataDir, 'tls')
  const keyPath = join(dir, 'self-signed.key')
  const certPath = join(dir, 'self-signed.crt')
  if (!existsSync(keyPath) || !existsSync(certPath) || !namesHost(readFileSync(certPath, 'utf8'), config.hostname)) {
    const made = await generate([{ name: 'commonName', value: config.hostname }], {
      keySize: 2048,
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3_600_000),
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: config.hostname }, ...LOOPBACK_NAMES] }],
    } as never)
    makePrivateDir(dir)
    writeFileSync(keyPath, made.private, { mode: 0o600 })
    writeFileSync(certPath, made.cert)
  }
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), configured: false }
}

/**
 * Beside the host name, the self-signed certificate names this machine's loopback: an app on the
 * same machine that trusts the file (`tls: { ca }`, the nodemailer recipe of docs/features/inbound.md) connects to
 * 127.0.0.1 or localhost and its check of the name passes.
 */
const LOOPBACK_NAMES = [
  { type: 2, value: 'localhost' },
  { type: 7, ip: '127.0.0.1' },
  { type: 7, ip: '::1' },
]

/** Whether the certificate is for `hostname` and the loopback (a file that cannot be read as one is not). */
function namesHost(pem: string, hostname: string): boolean {
  try {
    const cert = new X509Certificate(pem)
    return cert.checkHost(hostname) !== undefined && cert.checkIP('127.0.0.1') !== undefined
  } catch {
    return false
  }
}

function readPair(certPath: string, keyPath: string) {
  const read = (path: string, setting: string) => {
    try {
      return readFileSync(path, 'utf8')
    } catch (error) {
      throw new ConfigError(`Setting ${setting} (${path}) cannot be read: ${(error as Error).message}`)
    }
  }
  return { cert: read(certPath, 'tlsCert'), key: read(keyPath, 'tlsKey') }
}

/**
 * Calls `onChange` with the configured certificate whenever its files change (a renewal), so the
 * listeners pick it up without a restart. Nothing to watch for the self-signed one.
 */
export function watchTls(config: Config, logger: Logger, onChange: (material: TlsMaterial) => void): () => void {
  const { tlsCert, tlsKey } = config
  if (!tlsCert || !tlsKey) return () => {}
  const reload = () => {
    try {
      onChange({ ...readPair(tlsCert, tlsKey), configured: true })
      logger.info('TLS', 'certificate reloaded', { cert: tlsCert })
    } catch (error) {
      logger.error('TLS', 'certificate could not be reloaded; the old one stays', { error: String(error) })
    }
  }
  for (const path of [tlsCert, tlsKey]) watchFile(path, { interval: 1000 }, reload)
  return () => [tlsCert, tlsKey].forEach((path) => unwatchFile(path, reload))
}
