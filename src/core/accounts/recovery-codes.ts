import { randomInt } from 'node:crypto'
import { sha256Hex } from '../../lib/crypto.ts'

/*
 * Recovery codes: what signs in when the authenticator app is lost. Ten are made at once, each of
 * ten characters from an alphabet without look-alikes (49 random bits: with sign-in's throttle, out
 * of reach of guessing), shown as two groups of five.
 */

export const RECOVERY_CODE_COUNT = 10

/** Letters and digits less i, l, o, 0 and 1, which read alike. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'
const LENGTH = 10

/** Normalises what a person typed: no spaces or dashes, lower case. */
export const normaliseRecoveryCode = (typed: string) => typed.replace(/[\s-]/g, '').toLowerCase()

/** Whether `typed` has a recovery code's shape (a TOTP code is six digits). */
export const looksLikeRecoveryCode = (typed: string) => normaliseRecoveryCode(typed).length === LENGTH

export const hashRecoveryCode = (typed: string) => sha256Hex(`recovery-code:${normaliseRecoveryCode(typed)}`)

/** New codes, as shown: `abcde-fghjk`. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')
    return `${chars.slice(0, 5)}-${chars.slice(5)}`
  })
}
