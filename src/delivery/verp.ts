import { signToken, verifyToken } from '../lib/signed.ts'

const PURPOSE = 'return-path'

/**
 * The envelope sender of one delivery: bounces+<token>@<return-path host>. The token is the
 * delivery id, signed, so a bounce names exactly what bounced and cannot be forged.
 */
export const returnPath = (secret: string, deliveryId: number, returnPathHost: string) =>
  `bounces+${signToken(secret, PURPOSE, deliveryId.toString(36))}@${returnPathHost}`

/** The delivery id a return-path address names, or undefined when it is not one of ours. */
export function deliveryOfReturnPath(secret: string, address: string): number | undefined {
  const token = /^bounces\+([a-z0-9-]+)@/i.exec(address)?.[1]
  const payload = token && verifyToken(secret, PURPOSE, token.toLowerCase())
  return payload && /^[0-9a-z]+$/.test(payload) ? parseInt(payload, 36) : undefined
}
