import { signToken, verifyToken } from '../lib/signed.ts'

const PURPOSE = 'return-path'

/**
 * The envelope sender of one delivery: bounces+<token>@<return-path host>. The token is the
 * delivery id, signed, so a bounce names exactly what bounced and cannot be forged.
 */
export const returnPath = (secret: string, deliveryId: number, returnPathHost: string) =>
  `bounces+${signToken(secret, PURPOSE, deliveryId.toString(36))}@${returnPathHost}`

/** What a return-path address names: the delivery its token signs, and the host it is at (lower case). */
export interface ReturnPathToken {
  deliveryId: number
  host: string
}

/**
 * The delivery a return-path address names and its host, or undefined when it is not one of
 * ours. The host says nothing by itself: a token is good only at its own delivery's host, which
 * the caller checks.
 */
export function parseReturnPath(secret: string, address: string): ReturnPathToken | undefined {
  const match = /^bounces\+([a-z0-9-]+)@([^@\s]+)$/i.exec(address.trim())
  const payload = match && verifyToken(secret, PURPOSE, match[1]!.toLowerCase())
  if (!payload || !/^[0-9a-z]+$/.test(payload)) return undefined
  return { deliveryId: parseInt(payload, 36), host: match[2]!.toLowerCase().replace(/\.$/, '') }
}

/** The delivery id a return-path address names, or undefined when it is not one of ours. */
export const deliveryOfReturnPath = (secret: string, address: string): number | undefined => parseReturnPath(secret, address)?.deliveryId
