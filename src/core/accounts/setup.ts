import { lockName } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'
import { conflict, invalid } from '../../lib/errors.ts'
import { randomToken } from '../../lib/ids.ts'
import type { Logger } from '../../lib/logger.ts'
import { anyAccount } from './accounts.repository.ts'
import { createAccount } from './accounts.service.ts'
import { linkToken, readLinkToken } from './tokens.ts'

/** How long the first-run setup link works; each start while no account exists logs a new one. */
export const SETUP_LINK_MS = 24 * 3_600_000

export const setupToken = (secret: string, now: number): string => linkToken(secret, 'setup', [randomToken(12).replace(/[-_]/g, 'x')], now + SETUP_LINK_MS)

/**
 * At start, while no account exists: logs the one-time link of the first-run setup, the one way
 * to make the first account without the CLI. The link is a secret, logged because the operator
 * who reads the log is the one meant to use it; it stops working when any account exists.
 */
export async function announceSetup(db: Db, secret: string, baseUrl: string, logger: Logger, now: number): Promise<void> {
  if (await anyAccount(db)) return
  const link = `${baseUrl.replace(/\/+$/, '')}/console/setup?token=${encodeURIComponent(setupToken(secret, now))}`
  logger.warn('SETUP', `No account exists yet. Open ${link} within 24 hours to make the first one (or run: mailstead user create EMAIL)`)
}

export const setupOpen = async (db: Db) => !(await anyAccount(db))

/**
 * Makes the first account, in the caller's transaction, with a setup token that is genuine and
 * unexpired, while no account exists: the lock makes two setups at once run one after the other,
 * so the second finds the first's account and is refused.
 */
export async function completeSetup(db: Db, secret: string, token: string, email: string, passwordHash: string, now: number) {
  checkSetupLink(secret, token, now)
  // createAccount takes this lock too; taken here first, the check below sees any account made meanwhile.
  await lockName(db, 'accounts:first')
  await checkSetupOpen(db)
  return createAccount(db, email, passwordHash, now)
}

/** What completeSetup checks, asked before a password is hashed: a genuine, unexpired token while no account exists. */
export async function checkSetup(db: Db, secret: string, token: string, now: number): Promise<void> {
  checkSetupLink(secret, token, now)
  await checkSetupOpen(db)
}

function checkSetupLink(secret: string, token: string, now: number): void {
  if (readLinkToken(secret, 'setup', token, now) === undefined) throw invalid('token', 'this setup link is not valid: it has expired or was not made by this server')
}

async function checkSetupOpen(db: Db): Promise<void> {
  if (await anyAccount(db)) throw conflict('Setup is done: an account exists already', 'Sign in, or ask the operator for an account (mailstead user create).')
}
