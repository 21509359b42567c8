import { lockName } from '../../db/locking.ts'
import type { Db } from '../../db/schema.ts'
import { checkAddress } from '../../lib/address.ts'
import { isoTime } from '../../lib/clock.ts'
import { safeEqual } from '../../lib/crypto.ts'
import { conflict, invalid, notFound } from '../../lib/errors.ts'
import { newId } from '../../lib/ids.ts'
import * as repo from './accounts.repository.ts'
import { insertOwnerOfAll } from './members.repository.ts'
import { deleteAccountSessions } from './sessions.repository.ts'
import { linkToken, passwordStamp, readLinkToken } from './tokens.ts'

type AccountRow = NonNullable<Awaited<ReturnType<typeof repo.findAccount>>>

/** How long a link to set a password works. */
export const PASSWORD_LINK_MS = 24 * 3_600_000

export const toAccount = (row: AccountRow) => ({
  id: row.id,
  email: row.email,
  disabled: row.disabled === 1,
  passwordSet: row.password_hash !== null,
  instanceOwner: row.instance_owner === 1,
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
})

export type Account = ReturnType<typeof toAccount>

/** The account's email, checked as contacts' are, and the key it is matched by. */
export function requireEmail(email: string, field = 'email') {
  const checked = checkAddress(email)
  if (!checked.ok) throw invalid(field, checked.reason)
  return { email: checked.value.address, key: checked.value.key }
}

/**
 * A new account; `passwordHash` is made by the caller before its transaction (hashing takes
 * tens of milliseconds, which no write batch should wait for). Null leaves the password to be set
 * through a link.
 */
export async function createAccount(db: Db, email: string, passwordHash: string | null, now: number, options: { instanceOwner?: boolean } = {}): Promise<Account> {
  const checked = requireEmail(email)
  await lockName(db, 'accounts:first')
  const first = !(await repo.anyAccount(db))
  // The server's first account is its operator's, the instance owner: it sees every project.
  const instanceOwner = first || options.instanceOwner === true
  const row = await repo.insertAccount(db, { id: newId(), email: checked.email, email_key: checked.key, password_hash: passwordHash, instance_owner: instanceOwner ? 1 : 0 }, now)
  if (!row) throw conflict(`An account with the email ${checked.email} exists already`)
  // It owns, as a member, the projects the CLI made before it, as it always did.
  if (first) await insertOwnerOfAll(db, row.id, now)
  return toAccount(row)
}

/**
 * Makes an account instance owner, or no more. The server keeps one at least: the last cannot be
 * unmade, so that someone can always see every project (the CLI can make another first).
 */
export async function setInstanceOwner(db: Db, accountId: string, instanceOwner: boolean, now: number): Promise<Account> {
  await lockName(db, 'accounts:instance-owners')
  const row = await repo.updateAccount(db, accountId, { instance_owner: instanceOwner ? 1 : 0 }, now)
  if (!row) throw notFound(`Account ${accountId}`)
  if (!instanceOwner && (await repo.countInstanceOwners(db)) === 0) {
    throw conflict('The server keeps at least one instance owner', 'Make another account instance owner first (mailstead user set-instance-owner EMAIL on).')
  }
  return toAccount(row)
}

export const listAccounts = async (db: Db) => (await repo.listAccounts(db)).map(toAccount)

export async function requireAccountByEmail(db: Db, email: string): Promise<AccountRow> {
  const row = await repo.findAccountByKey(db, requireEmail(email).key)
  if (!row) throw notFound(`Account ${email}`)
  return row
}

/** A new password; every session of the account ends (the CLI's reset, a link's use) but `keepSession` (the one a signed-in change is made with). */
export async function setPassword(db: Db, accountId: string, passwordHash: string, now: number, keepSession?: string): Promise<Account> {
  const row = await repo.updateAccount(db, accountId, { password_hash: passwordHash }, now)
  if (!row) throw notFound(`Account ${accountId}`)
  await deleteAccountSessions(db, accountId, keepSession)
  return toAccount(row)
}

/** Disabled, an account cannot sign in and its sessions end at once; enabled, it may sign in again. */
export async function setAccountDisabled(db: Db, accountId: string, disabled: boolean, now: number): Promise<Account> {
  const row = await repo.updateAccount(db, accountId, { disabled: disabled ? 1 : 0 }, now)
  if (!row) throw notFound(`Account ${accountId}`)
  if (disabled) await deleteAccountSessions(db, accountId)
  return toAccount(row)
}

/**
 * The token of a link that sets the account's password, for `PASSWORD_LINK_MS`. It names the
 * password the account has now (by a fingerprint of its hash): once a password is set through it,
 * or otherwise, the link stops working.
 */
export const passwordToken = (secret: string, account: Pick<AccountRow, 'id' | 'password_hash'>, now: number): string =>
  linkToken(secret, 'password', [account.id, passwordStamp(account.password_hash)], now + PASSWORD_LINK_MS)

export const passwordLink = (baseUrl: string, token: string) => `${baseUrl.replace(/\/+$/, '')}/console/password?token=${encodeURIComponent(token)}`

const usedLink = () => invalid('token', 'this link is not valid: it has expired, was already used, or was not made by this server')

/** The account a password link is for, while the link still works; a 422 naming `token` otherwise. */
export async function accountOfPasswordToken(db: Db, secret: string, token: string, now: number): Promise<AccountRow> {
  const [accountId, stamp] = readLinkToken(secret, 'password', token, now) ?? []
  const row = accountId === undefined ? undefined : await repo.findAccountLocked(db, accountId)
  if (!row || row.disabled === 1 || !safeEqual(passwordStamp(row.password_hash), stamp ?? '')) throw usedLink()
  return row
}

/** Sets the password a link is for, in the caller's transaction: the link's checks are made again there, so it is used once. */
export async function setPasswordWithToken(db: Db, secret: string, token: string, passwordHash: string, now: number): Promise<Account> {
  const row = await accountOfPasswordToken(db, secret, token, now)
  return setPassword(db, row.id, passwordHash, now)
}
