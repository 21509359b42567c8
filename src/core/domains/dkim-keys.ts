import { generateKeyPair, type KeyObject } from 'node:crypto'
import { promisify } from 'node:util'

const generate = promisify(generateKeyPair)

export interface DkimKeyPair {
  /** What the DKIM record's p= holds. */
  publicKey: string
  privateKeyPem: string
}

/**
 * An RSA-2048 key (p= is the base64 SubjectPublicKeyInfo) and an Ed25519 key (p= is the raw
 * 32-byte key, RFC 8463). Generated on libuv's thread pool, so the event loop keeps serving.
 */
export async function generateDkimKeys(): Promise<{ rsa: DkimKeyPair; ed25519: DkimKeyPair }> {
  const [rsa, ed25519] = await Promise.all([generate('rsa', { modulusLength: 2048 }), generate('ed25519')])
  return {
    rsa: { publicKey: spki(rsa.publicKey).toString('base64'), privateKeyPem: pem(rsa.privateKey) },
    ed25519: { publicKey: spki(ed25519.publicKey).subarray(-32).toString('base64'), privateKeyPem: pem(ed25519.privateKey) },
  }
}

const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' })
const pem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString()
