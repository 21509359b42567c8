import type { Db } from '../../db/schema.ts'
import { prepared } from '../../db/prepared.ts'
import type { KeyScope, KeyType } from './keys.ts'

export const insertProject = (db: Db, name: string, sandbox: boolean, now: number) =>
  db
    .insertInto('projects')
    .values({ name, disabled: 0, sandbox: sandbox ? 1 : 0, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow()

export const findProject = (db: Db, id: number) =>
  db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst()

export const listProjects = (db: Db) => db.selectFrom('projects').selectAll().orderBy('id').execute()

export const updateProject = (
  db: Db,
  id: number,
  values: { name?: string; disabled?: number; sandbox?: number; rate_limit_per_minute?: number | null; default_sender?: string | null; send_rate_per_second?: number | null; brand_color?: string | null },
  now: number,
) =>
  db
    .updateTable('projects')
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()

export const insertKey = (
  db: Db,
  key: { project_id: number; type: KeyType; prefix: string; hash: string; name: string; scope: KeyScope; expires_at: number | null },
  now: number,
) => db.insertInto('api_keys').values({ ...key, created_at: now }).returningAll().executeTakeFirstOrThrow()

/** Keys with this prefix, with their project: what authentication compares against. */
export const findKeysByPrefix = (db: Db, prefix: string) => selectKeysByPrefix(db, { prefix })

const selectKeysByPrefix = prepared((db, p: { prefix: string }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('projects', 'projects.id', 'api_keys.project_id')
    .select([
      'api_keys.id as keyId',
      'api_keys.type',
      'api_keys.hash',
      'api_keys.revoked_at',
      'api_keys.scope',
      'api_keys.expires_at',
      'projects.id as projectId',
      'projects.name as projectName',
      'projects.disabled',
      'projects.rate_limit_per_minute',
    ])
    .where('api_keys.prefix', '=', p.prefix),
)

export const listKeys = (db: Db, projectId: number) =>
  db.selectFrom('api_keys').selectAll().where('project_id', '=', projectId).orderBy('id').execute()

export const revokeKey = (db: Db, id: number, now: number) =>
  db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst()

export const findKey = (db: Db, id: number) =>
  db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst()

/** Whether a key still stands: its revocation and its project's switch. */
export const findKeyStanding = (db: Db, keyId: number) => selectKeyStanding(db, { keyId }).then((rows) => rows[0])

const selectKeyStanding = prepared((db, p: { keyId: number }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('projects', 'projects.id', 'api_keys.project_id')
    .select(['api_keys.revoked_at', 'api_keys.expires_at', 'projects.disabled'])
    .where('api_keys.id', '=', p.keyId),
)

/**
 * Writes down that these keys were used at `now`, in one statement; a later time another process
 * wrote stays. Called at most once a minute per key (authenticator.ts), never per request.
 */
export const touchKeys = (db: Db, keyIds: number[], now: number) =>
  db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', 'in', keyIds)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now)]))
    .execute()

/** Deletes the project and, by their foreign keys, everything it holds. */
export const deleteProject = (db: Db, id: number) => db.deleteFrom('projects').where('id', '=', id).returning('id').executeTakeFirst()

/** The project's sandbox signing key (sealed) and its p= value, null until first made. */
export const findSandboxKey = (db: Db, id: number) =>
  db.selectFrom('projects').select(['sandbox_dkim_private_key', 'sandbox_dkim_public_key']).where('id', '=', id).executeTakeFirst()

/** Stores a sandbox key unless one was stored meanwhile (another process's, which then stands). */
export const storeSandboxKey = (db: Db, id: number, sealedPrivateKey: string, publicKey: string) =>
  db
    .updateTable('projects')
    .set({ sandbox_dkim_private_key: sealedPrivateKey, sandbox_dkim_public_key: publicKey })
    .where('id', '=', id)
    .where('sandbox_dkim_private_key', 'is', null)
    .execute()
