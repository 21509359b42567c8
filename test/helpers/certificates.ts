import { generateKeyPairSync } from 'node:crypto'
import { generate } from 'selfsigned'

const DAY = 86_400_000

const newKeyPair = () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  return { publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string }
}
let shared: ReturnType<typeof newKeyPair> | undefined

/**
 * A self-signed certificate for `names`, valid from `fromDays` to `toDays` from now. Every one is
 * made on one shared key unless `newKey` asks for a key of its own.
 */
export async function makeCertificate(names: string[], options: { fromDays?: number; toDays?: number; newKey?: boolean } = {}) {
  const keyPair = options.newKey ? newKeyPair() : (shared ??= newKeyPair())
  const now = Date.now()
  const made = await generate([{ name: 'commonName', value: names[0]! }], {
    keyPair,
    algorithm: 'sha256',
    notBeforeDate: new Date(now + (options.fromDays ?? -1) * DAY),
    notAfterDate: new Date(now + (options.toDays ?? 90) * DAY),
    extensions: [{ name: 'subjectAltName', altNames: names.map((value) => ({ type: 2, value })) }],
  } as never)
  return { cert: made.cert, key: made.private }
}
