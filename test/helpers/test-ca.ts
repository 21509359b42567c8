import { generateKeyPairSync } from 'node:crypto'
import { generate } from 'selfsigned'

export interface Issued {
  key: string
  cert: string
}

export interface TestCa {
  /** The CA's certificate (PEM): what a client must trust (deliveryCaFile, trustedCas). */
  cert: string
  /**
   * A server certificate signed by the CA for `names` (DNS names; the first is the common name).
   * `expired`: valid from ten days ago until yesterday.
   */
  issue(names: string | string[], options?: { expired?: boolean }): Promise<Issued>
  /** A certificate for `name` that signs itself: no CA vouches for it. */
  selfSigned(name: string): Promise<Issued>
}

/**
 * A certificate authority made at run time, so that its certificates never expire in the
 * repository. RSA: selfsigned's EC keys fail under Bun. One key pair serves every certificate it
 * issues, so issuing takes milliseconds.
 */
export async function createTestCa(): Promise<TestCa> {
  const ca = await generate([{ name: 'commonName', value: 'Mailstead Test CA' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 30 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  })
  const keyPair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  })
  const leaf = (names: string[]) => ({
    algorithm: 'sha256',
    keyPair,
    extensions: [
      { name: 'basicConstraints' as const, cA: false },
      { name: 'keyUsage' as const, digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage' as const, serverAuth: true },
      { name: 'subjectAltName' as const, altNames: names.map((value) => ({ type: 2 as const, value })) },
    ],
  })
  const day = 86_400_000
  return {
    cert: ca.cert,
    async issue(names, options = {}) {
      const list = typeof names === 'string' ? [names] : names
      const made = await generate([{ name: 'commonName', value: list[0]! }], {
        ...leaf(list),
        ca: { key: ca.private, cert: ca.cert },
        notBeforeDate: new Date(Date.now() - (options.expired ? 10 : 1) * day),
        notAfterDate: new Date(Date.now() + (options.expired ? -1 : 30) * day),
      })
      return { key: made.private, cert: made.cert }
    },
    async selfSigned(name) {
      // Its own CA, as `openssl req -x509` makes them: so TLS sees a self-signed certificate.
      const made = await generate([{ name: 'commonName', value: name }], {
        algorithm: 'sha256',
        keyPair,
        extensions: [
          { name: 'basicConstraints', cA: true },
          { name: 'subjectAltName', altNames: [{ type: 2, value: name }] },
        ],
      })
      return { key: made.private, cert: made.cert }
    },
  }
}
