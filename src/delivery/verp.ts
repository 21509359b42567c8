import { hideId, OPAQUE_ID_LENGTH, revealId } from '../lib/opaque-id.ts'
import { signToken, verifyToken } from '../lib/signed.ts'

const PURPOSE = 'return-path'

/**
 * The envelope sender of one delivery: bounces+<token>@<return-path host>. The token is the
 * delivery id, encrypted (so a recipient cannot read the server's volume from it) and signed
 * (so a bounce names exactly what bounced and cannot be forged).
 */
export const returnPath = (secret: string, deliveryId: number, returnPathHost: string) =>
  `bounces+${signToken(secret, PURPOSE, hideId(secret, PURPOSE, deliveryId))}@${returnPathHost}`

/** What a return-path address names: the delivery its token signs, and the host it is at (lower case). */
export interface ReturnPathToken {
  deliveryId: number
  host: string
  /**
   * A token of the old form, the delivery id in base36, signed but readable: taken only for
   * deliveries recent enough to still be reported on (LEGACY_TOKEN_DAYS).
   */
  legacy?: true
}

/** How long after its delivery was made an old, readable token is still taken. */
export const LEGACY_TOKEN_DAYS = 30

/**
 * The delivery a return-path address names and its host, or undefined when it is not one of
 * ours. The host says nothing by itself: a token is good only at its own delivery's host, which
 * the caller checks.
 */
export function parseReturnPath(secret: string, address: string): ReturnPathToken | undefined {
  const match = /^bounces\+([a-z0-9-]+)@([^@\s]+)$/i.exec(address.trim())
  const payload = match && verifyToken(secret, PURPOSE, match[1]!.toLowerCase())
  if (!payload) return undefined
  const host = match[2]!.toLowerCase().replace(/\.$/, '')
  if (payload.length === OPAQUE_ID_LENGTH) {
    const deliveryId = revealId(secret, PURPOSE, payload)
    return deliveryId === undefined ? undefined : { deliveryId, host }
  }
  if (!/^[0-9a-z]{1,11}$/.test(payload)) return undefined
  return { deliveryId: parseInt(payload, 36), host, legacy: true }
}

/** The delivery id a return-path address names, or undefined when it is not one of ours. */
export const deliveryOfReturnPath = (secret: string, address: string): number | undefined => parseReturnPath(secret, address)?.deliveryId
