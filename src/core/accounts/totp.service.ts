import * as OTPAuth from 'otpauth'
import type { Db } from '../../db/schema.ts'
import { AppError, conflict, invalid } from '../../lib/errors.ts'
import { qrSvg } from '../../lib/qr.ts'
import { seal, unseal } from '../../lib/sealed.ts'
import * as codes from './recovery-codes.repository.ts'
import { hashRecoveryCode, looksLikeRecoveryCode, newRecoveryCodes } from './recovery-codes.ts'
import * as repo from './totp.repository.ts'

const PERIOD_S = 30
const SEALED_FOR = 'totp'

const totpOf = (base32: string, label = 'account') =>
  new OTPAuth.TOTP({ issuer: 'Mailstead', label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: OTPAuth.Secret.fromBase32(base32) })

/**
 * The time step a code belongs to, allowing one step either side for clocks that drift; undefined
 * for a wrong code, or one used already (its step is not after the last accepted).
 */
function acceptedStep(base32: string, code: string, lastCounter: number | null, now: number): number | undefined {
  if (!/^[0-9]{6}$/.test(code)) return undefined
  const delta = totpOf(base32).validate({ token: code, timestamp: now, window: 1 })
  if (delta === null) return undefined
  const step = Math.floor(now / 1000 / PERIOD_S) + delta
  return lastCounter !== null && step <= lastCounter ? undefined : step
}

/**
 * Starts enrolling a second factor: a new secret, to be shown this once as text, as an
 * otpauth:// URI and as a QR code of that URI (an SVG document), which authenticator apps scan.
 * Sign-in asks for codes only once a code confirms it. Refused while one is confirmed: disable it first.
 */
export async function enrollTotp(db: Db, serverSecret: string, account: { id: string; email: string }, now: number) {
  const existing = await repo.findTotpLocked(db, account.id)
  if (existing?.confirmed_at != null) throw conflict('A second factor is enabled already', 'Disable it with a code first.')
  const secret = new OTPAuth.Secret({ size: 20 }).base32
  await repo.putPendingTotp(db, account.id, seal(serverSecret, SEALED_FOR, secret), now)
  const uri = totpOf(secret, account.email).toString()
  return { secret, uri, qrSvg: await qrSvg(uri) }
}

const wrongCode = () => invalid('code', 'is not the current code of your authenticator (or was used already)')

export async function confirmTotp(db: Db, serverSecret: string, accountId: string, code: string, now: number) {
  const row = await repo.findTotpLocked(db, accountId)
  if (!row || row.confirmed_at !== null) throw conflict(row ? 'The second factor is enabled already' : 'No second factor is being enrolled', 'Start with POST /api/v1/account/totp.')
  const step = acceptedStep(unseal(serverSecret, SEALED_FOR, row.secret), code, row.last_counter, now)
  if (step === undefined) throw wrongCode()
  await repo.markUsed(db, accountId, step, now)
  return { totpEnabled: true, recoveryCodes: await replaceRecoveryCodes(db, accountId, now) }
}

/** New recovery codes in place of the account's others: answered this once, kept only hashed. */
async function replaceRecoveryCodes(db: Db, accountId: string, now: number): Promise<string[]> {
  const made = newRecoveryCodes()
  await codes.replaceRecoveryCodes(db, accountId, made.map(hashRecoveryCode), now)
  return made
}

/** Recovery codes anew, for an account whose second factor is on: the old ones stop working. */
export async function regenerateRecoveryCodes(db: Db, accountId: string, now: number) {
  const row = await repo.findTotpLocked(db, accountId)
  if (!row || row.confirmed_at === null) throw conflict('No second factor is enabled', 'Recovery codes come with a confirmed second factor.')
  return { recoveryCodes: await replaceRecoveryCodes(db, accountId, now) }
}

/** Whether the second factor is on, and how many of its recovery codes are still unused. */
export async function secondFactorOf(db: Db, accountId: string) {
  const totpEnabled = await repo.isTotpEnabled(db, accountId)
  return { totpEnabled, recoveryCodesLeft: totpEnabled ? await codes.countUnusedRecoveryCodes(db, accountId) : 0 }
}

export async function disableTotp(db: Db, serverSecret: string, accountId: string, code: string, now: number) {
  const row = await repo.findTotpLocked(db, accountId)
  if (!row || row.confirmed_at === null) throw conflict('No second factor is enabled')
  if (acceptedStep(unseal(serverSecret, SEALED_FOR, row.secret), code, row.last_counter, now) === undefined) throw wrongCode()
  await codes.deleteRecoveryCodes(db, accountId)
  await repo.deleteTotp(db, accountId)
  return { totpEnabled: false }
}

export const isTotpEnabled = repo.isTotpEnabled

/**
 * What a sign-in's second factor says, in the sign-in's transaction: 'ok' when the account has
 * none or `code` is right (it is then used up), 'missing' when a code is needed and none came,
 * 'wrong' otherwise. `code` is the authenticator's six digits or one of the account's unused
 * recovery codes (ten characters, dash and case as the person likes).
 */
export async function checkSignInCode(db: Db, serverSecret: string, accountId: string, code: string | undefined, now: number): Promise<'ok' | 'missing' | 'wrong'> {
  const row = await repo.findTotpLocked(db, accountId)
  if (!row || row.confirmed_at === null) return 'ok'
  if (code === undefined) return 'missing'
  if (looksLikeRecoveryCode(code)) return (await codes.useRecoveryCode(db, accountId, hashRecoveryCode(code), now)) ? 'ok' : 'wrong'
  const step = acceptedStep(unseal(serverSecret, SEALED_FOR, row.secret), code, row.last_counter, now)
  if (step === undefined) return 'wrong'
  await repo.markUsed(db, accountId, step)
  return 'ok'
}

export const totpRequired = () =>
  new AppError(401, 'TOTP_REQUIRED', 'This account needs the code of its authenticator app', { suggestion: 'Send the 6-digit code (or one of your recovery codes) as `code` with the email and password.' })
