import { createPrivateKey, X509Certificate } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../config/config-schema.ts'
import { finding, type Finding } from '../lib/findings.ts'

const DAY = 86_400_000
/** A certificate that ends sooner than this is a warning: renewal should have happened by now. */
export const EXPIRY_WARNING_DAYS = 14

export interface CertificateInput {
  /** PEM: the certificate first, its chain after. */
  cert: string
  /** PEM private key, when one is configured beside it. */
  key?: string
  /** Where it came from, named in the sentences. */
  path: string
  selfSigned: boolean
}

const check = 'tls-certificate'

/**
 * What the SMTP listeners' certificate is worth: readable, its key the right one, its names
 * covering `hostname`, and not expired or about to (a warning within 14 days).
 */
export function judgeCertificate(input: CertificateInput, hostname: string, now: number): Finding[] {
  const { path } = input
  let cert: X509Certificate
  try {
    cert = new X509Certificate(input.cert)
  } catch (error) {
    return [finding(check, path, 'failed', `${path} is not a PEM certificate: ${(error as Error).message}.`, 'Point MAILSTEAD_TLS_CERT at the certificate file (fullchain.pem).')]
  }
  return [
    ...(input.selfSigned ? [selfSigned(path, hostname)] : []),
    ...(input.key === undefined ? [] : [judgeKey(cert, input.key, path)]),
    judgeNames(cert, path, hostname),
    judgeExpiry(cert, path, now),
  ]
}

const useRealCertificate = (hostname: string) =>
  `Set MAILSTEAD_TLS_CERT and MAILSTEAD_TLS_KEY to a certificate for ${hostname}, such as Let's Encrypt's fullchain.pem and privkey.pem.`

function selfSigned(path: string, hostname: string): Finding {
  return finding(
    check,
    path,
    'warning',
    'The SMTP listeners present a self-signed certificate: applications that verify TLS refuse it on the relay.',
    useRealCertificate(hostname),
  )
}

function judgeKey(cert: X509Certificate, keyPem: string, path: string): Finding {
  let matches: boolean
  try {
    matches = cert.checkPrivateKey(createPrivateKey(keyPem))
  } catch (error) {
    return finding(check, path, 'failed', `MAILSTEAD_TLS_KEY is not a PEM private key: ${(error as Error).message}.`, 'Point MAILSTEAD_TLS_KEY at the key file (privkey.pem).')
  }
  return matches
    ? finding(check, path, 'ok', 'MAILSTEAD_TLS_KEY is the private key of the certificate.')
    : finding(check, path, 'failed', 'MAILSTEAD_TLS_KEY is not the private key of the certificate in MAILSTEAD_TLS_CERT.', 'Give the key and the certificate of one pair (privkey.pem and fullchain.pem of the same issue).')
}

function judgeNames(cert: X509Certificate, path: string, hostname: string): Finding {
  const names = cert.subjectAltName ?? cert.subject.replace(/\n/g, ', ')
  if (cert.checkHost(hostname)) return finding(check, path, 'ok', `The certificate covers ${hostname} (${names}).`)
  return finding(
    check,
    path,
    'failed',
    `The certificate's names (${names}) do not cover ${hostname}, the server's name: clients that verify TLS refuse it.`,
    `${useRealCertificate(hostname)} Or set MAILSTEAD_HOSTNAME to a name the certificate holds.`,
  )
}

function judgeExpiry(cert: X509Certificate, path: string, now: number): Finding {
  const from = Date.parse(cert.validFrom)
  const to = Date.parse(cert.validTo)
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const renew = 'Renew it (certbot renew, or your ACME client): Mailstead picks up the new files within a second.'
  if (now < from) return finding(check, path, 'failed', `The certificate is not valid before ${day(from)}.`, 'Check the clock of this machine, or use a certificate that is valid now.')
  if (now >= to) return finding(check, path, 'failed', `The certificate expired on ${day(to)}.`, renew)
  const days = Math.floor((to - now) / DAY)
  if (days < EXPIRY_WARNING_DAYS) return finding(check, path, 'warning', `The certificate expires on ${day(to)}, in ${days} days.`, renew)
  return finding(check, path, 'ok', `The certificate is valid until ${day(to)} (${days} days).`)
}

/**
 * The certificate the SMTP listeners use (see tls.ts): the configured pair, else the self-signed
 * one in the data directory. Nothing is generated here.
 */
export function certificateFindings(config: Pick<Config, 'tlsCert' | 'tlsKey' | 'dataDir' | 'hostname'>, now: number): Finding[] {
  const configured = config.tlsCert && config.tlsKey
  const path = configured ? config.tlsCert! : join(config.dataDir, 'tls', 'self-signed.crt')
  if (!configured && !existsSync(path)) {
    return [finding(check, path, 'warning', 'No certificate is configured: a self-signed one is made at the first start.', useRealCertificate(config.hostname))]
  }
  let cert: string
  let key: string | undefined
  try {
    cert = readFileSync(path, 'utf8')
    key = configured ? readFileSync(config.tlsKey!, 'utf8') : undefined
  } catch (error) {
    return [finding(check, path, 'failed', `The certificate or its key cannot be read: ${(error as Error).message}.`, 'Check the paths in MAILSTEAD_TLS_CERT and MAILSTEAD_TLS_KEY and that Mailstead may read them.')]
  }
  return judgeCertificate({ cert, key, path, selfSigned: !configured }, config.hostname, now)
}
