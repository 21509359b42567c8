import type { Db } from '../../db/schema.ts'
import { AppError, invalid, notFound } from '../../lib/errors.ts'
import { isoTime } from '../../lib/clock.ts'
import { safeEqual, sha256Hex } from '../../lib/crypto.ts'
import { requireAddress } from '../../lib/address.ts'
import { projectDisabledChanged } from '../reactions.ts'
import { generateKey, keyPrefix, keyTypeOf, maskedKey, type KeyScope, type KeyType } from './keys.ts'
import * as repo from './projects.repository.ts'

type ProjectRow = Awaited<ReturnType<typeof repo.insertProject>>
type KeyRow = Awaited<ReturnType<typeof repo.insertKey>>

export const toProject = (row: ProjectRow) => ({
  id: row.id,
  name: row.name,
  disabled: row.disabled === 1,
  sandbox: row.sandbox === 1,
  rateLimitPerMinute: row.rate_limit_per_minute,
  defaultSender: row.default_sender,
  sendRatePerSecond: row.send_rate_per_second,
  brandColor: row.brand_color,
  createdAt: isoTime(row.created_at),
  updatedAt: isoTime(row.updated_at),
})

const timeOrNull = (ms: number | null) => (ms === null ? null : isoTime(ms))

export const toKeySummary = (row: KeyRow) => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  type: row.type,
  scope: row.scope,
  key: maskedKey(row.prefix),
  prefix: row.prefix,
  createdAt: isoTime(row.created_at),
  expiresAt: timeOrNull(row.expires_at),
  lastUsedAt: timeOrNull(row.last_used_at),
  revokedAt: timeOrNull(row.revoked_at),
})

/** What a new key is: its name, what it may do and until when (null: no end). */
export interface KeyOptions {
  name?: string
  scope?: KeyScope
  expiresAt?: number | null
}

/**
 * A project with its first secret and public key; the keys are shown this once. A sandbox
 * project's mail is simulated at the delivery step and never leaves the server.
 */
export async function createProject(db: Db, name: string, now: number, options: { sandbox?: boolean } = {}) {
  const sandbox = options.sandbox === true
  const project = await repo.insertProject(db, requireName(name), sandbox, now)
  const secret = await createKey(db, project.id, 'secret', now, { name: 'Secret key' })
  const publik = await createKey(db, project.id, 'public', now, { name: 'Public key' })
  return { id: project.id, name: project.name, sandbox, secretKey: secret.key, publicKey: publik.key }
}

/**
 * A new key, shown whole this once. A public key (`pk_`, Plunk's, for POST /v1/track alone) has
 * no scope but `full`: its type limits it already. An expiry must be in the future.
 */
export async function createKey(db: Db, projectId: number, type: KeyType, now: number, options: KeyOptions = {}) {
  await requireProject(db, projectId)
  const scope = options.scope ?? 'full'
  if (type === 'public' && scope !== 'full') throw invalid('scope', 'applies to secret keys only: a public key can only track events (POST /v1/track)')
  const expiresAt = options.expiresAt ?? null
  if (expiresAt !== null && expiresAt <= now) throw invalid('expiresAt', 'must be in the future')
  const name = requireKeyName(options.name ?? (type === 'public' ? 'Public key' : 'Secret key'))
  const generated = generateKey(type)
  const row = await repo.insertKey(db, { project_id: projectId, type, prefix: generated.prefix, hash: generated.hash, name, scope, expires_at: expiresAt }, now)
  changes++
  return { ...toKeySummary(row), key: generated.key }
}

function requireKeyName(name: string): string {
  const trimmed = name.trim()
  if (trimmed.length === 0 || trimmed.length > 100) throw invalid('name', 'must be 1 to 100 characters, for example "Production server"')
  if (/\p{Cc}/u.test(trimmed)) throw invalid('name', 'must be one line of text, without control characters')
  return trimmed
}

export async function listKeys(db: Db, projectId: number) {
  await requireProject(db, projectId)
  return (await repo.listKeys(db, projectId)).map(toKeySummary)
}

/**
 * Moves whenever this process changes a key or a project: what the authenticator's memory checks,
 * beside the database's change signal, which SQLite moves only for other connections' commits.
 */
let changes = 0
export const projectChanges = () => changes

export async function revokeKey(db: Db, keyId: number, now: number) {
  const row = (await repo.revokeKey(db, keyId, now)) ?? (await repo.findKey(db, keyId))
  // After the write: a request between the two would otherwise remember the key as it was.
  changes++
  if (!row) throw notFound(`Key ${keyId}`)
  return toKeySummary(row)
}

/** Revokes a key of this project; another project's key is not found. */
export async function revokeProjectKey(db: Db, projectId: number, keyId: number, now: number) {
  const row = await repo.findKey(db, keyId)
  if (!row || row.project_id !== projectId) throw notFound(`Key ${keyId}`)
  return revokeKey(db, keyId, now)
}

export async function getProject(db: Db, id: number) {
  return toProject(await requireProject(db, id))
}

export function renameProject(db: Db, id: number, name: string, now: number) {
  return changeProject(db, id, { name: requireName(name) }, now)
}

/**
 * Deletes a project with its keys, contacts, mail, campaigns, workflows, webhooks, members and
 * invitations. Mail it had waiting is gone with it.
 */
export async function deleteProject(db: Db, id: number) {
  const deleted = await repo.deleteProject(db, id)
  changes++
  if (!deleted) throw notFound(`Project ${id}`)
  return { id, success: true, message: 'Project deleted' }
}

export const listProjects = async (db: Db) => (await repo.listProjects(db)).map(toProject)

/**
 * Disables or enables a project, in the caller's transaction. Disabled, its keys are refused and
 * its mail that waits is held (never bounced); enabled again, that mail is sent on.
 */
export async function setProjectDisabled(db: Db, id: number, disabled: boolean, now: number) {
  const project = await changeProject(db, id, { disabled: disabled ? 1 : 0 }, now)
  await projectDisabledChanged(db, id, disabled, now)
  return project
}

/** null returns the project to the server-wide limit. */
export const setProjectRateLimit = (db: Db, id: number, perMinute: number | null, now: number) =>
  changeProject(db, id, { rate_limit_per_minute: perMinute }, now)

/** The From of sends that name none; null removes it. */
export const setDefaultSender = (db: Db, id: number, address: string | null, now: number) =>
  changeProject(db, id, { default_sender: address === null ? null : requireAddress(address, 'ADDRESS').address }, now)

/** The colour of the pages its recipients open, #rrggbb; null for none. */
export function setBrandColor(db: Db, id: number, color: string | null, now: number) {
  if (color !== null && !/^#[0-9a-f]{6}$/i.test(color)) throw invalid('brandColor', 'must be a colour as #rrggbb, for example #4f46e5, or null for none')
  return changeProject(db, id, { brand_color: color === null ? null : color.toLowerCase() }, now)
}

/** Emails per second for this project; null returns it to the server-wide rate. */
export const setSendRate = (db: Db, id: number, perSecond: number | null, now: number) =>
  changeProject(db, id, { send_rate_per_second: perSecond }, now)

export async function changeProject(db: Db, id: number, values: Parameters<typeof repo.updateProject>[2], now: number) {
  const row = await repo.updateProject(db, id, values, now)
  changes++
  if (!row) throw notFound(`Project ${id}`)
  return toProject(row)
}

function requireName(name: string): string {
  const trimmed = name.trim()
  if (trimmed.length === 0 || trimmed.length > 100) throw invalid('name', 'must be 1 to 100 characters')
  return trimmed
}

async function requireProject(db: Db, id: number) {
  const project = await repo.findProject(db, id)
  if (!project) throw notFound(`Project ${id}`)
  return project
}

export interface Caller {
  keyId: number
  keyType: KeyType
  scope: KeyScope
  /** When the key stops working (ms), null for never: checked at every use, remembered keys too. */
  expiresAt: number | null
  project: { id: number; name: string; rateLimitPerMinute: number | null }
}

const unauthorized = (message: string) =>
  new AppError(401, 'UNAUTHORIZED', message, { suggestion: 'Send the header Authorization: Bearer <API key>.' })

/** The key if it has a key's shape (sk_ or pk_ and 43 characters); a 401 otherwise, found without the database. */
export function requireKeyShape(apiKey: string | undefined): string {
  if (!apiKey) throw unauthorized('Missing API key')
  if (!keyTypeOf(apiKey)) throw unauthorized('Invalid API key')
  return apiKey
}

/** The refusal of an expired key (requireUnexpired): the SMTP relay passes its message on. */
export const isKeyExpiry = (error: unknown): error is AppError => error instanceof AppError && error.status === 401 && error.message.startsWith(EXPIRED)

/**
 * The caller behind an API key. Rows are found by the key's clear prefix and the hash is compared
 * in constant time. Unknown and revoked keys are indistinguishable to the caller.
 */
export async function authenticate(db: Db, given: string | undefined, now: number): Promise<Caller> {
  const apiKey = requireKeyShape(given)
  const hash = sha256Hex(apiKey)
  const rows = await repo.findKeysByPrefix(db, keyPrefix(apiKey))
  const row = rows.find((candidate) => safeEqual(candidate.hash, hash))
  if (!row || row.revoked_at !== null) throw unauthorized('Invalid API key')
  requireUnexpired(row.expires_at, now)
  if (row.disabled === 1) throw new AppError(403, 'PROJECT_DISABLED', 'This project is disabled')
  return {
    keyId: row.keyId,
    keyType: row.type,
    scope: row.scope,
    expiresAt: row.expires_at,
    project: { id: row.projectId, name: row.projectName, rateLimitPerMinute: row.rate_limit_per_minute },
  }
}

const EXPIRED = 'This API key expired at '

/** A key past its expiry is refused as a revoked one is (401), its message saying why: whoever sends it holds it. */
export function requireUnexpired(expiresAt: number | null, now: number): void {
  if (expiresAt === null || expiresAt > now) return
  throw new AppError(401, 'UNAUTHORIZED', `${EXPIRED}${isoTime(expiresAt)}`, {
    suggestion: 'Create a new key (POST /api/v1/keys, or mailstead key create) and use it instead.',
  })
}
