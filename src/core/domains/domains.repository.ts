import type { Insertable, Selectable, Updateable } from 'kysely'
import { claim, type Claimant } from '../../db/claims.ts'
import type { Db, DomainTable } from '../../db/schema.ts'

export type DomainRow = Selectable<DomainTable>

export const insertDomain = (db: Db, row: Insertable<DomainTable>) =>
  db.insertInto('domains').values(row).returningAll().executeTakeFirstOrThrow() as Promise<DomainRow>

export const findDomain = (db: Db, projectId: number, id: number) =>
  db.selectFrom('domains').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst() as Promise<
    DomainRow | undefined
  >

export const findDomainById = (db: Db, id: number) =>
  db.selectFrom('domains').selectAll().where('id', '=', id).executeTakeFirst() as Promise<DomainRow | undefined>

/** Every project's domain of this name: selectors must differ, and a verified one is taken. */
export const findDomainsByName = (db: Db, name: string) =>
  db.selectFrom('domains').selectAll().where('name', '=', name).orderBy('id').execute() as Promise<DomainRow[]>

export const listDomains = (db: Db, projectId?: number) => {
  let query = db.selectFrom('domains').selectAll()
  if (projectId !== undefined) query = query.where('project_id', '=', projectId)
  return query.orderBy('id').execute() as Promise<DomainRow[]>
}

export const updateDomain = (db: Db, id: number, changes: Updateable<DomainTable>) =>
  db.updateTable('domains').set(changes).where('id', '=', id).returningAll().executeTakeFirst() as Promise<DomainRow | undefined>

/** Claims the domain's check (src/db/claims.ts) and marks it running; undefined when the domain is gone or a check already runs. */
export const beginDomainCheck = (db: Db, claimant: Claimant, id: number, now: number) =>
  claim(db, 'domains', claimant, now, { picked: [id], still: (eb) => eb('is_verifying', '=', 0), set: { is_verifying: 1, updated_at: now } })
    .returningAll()
    .executeTakeFirst() as Promise<DomainRow | undefined>

export const deleteDomain = (db: Db, projectId: number, id: number) =>
  db.deleteFrom('domains').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

/** Domains whose next check is due and that no check is running for (read before a claim: an idle tick writes nothing). */
export const dueDomains = (db: Db, now: number, limit: number) =>
  db
    .selectFrom('domains')
    .selectAll()
    .where('next_check_at', '<=', now)
    .where('is_verifying', '=', 0)
    .orderBy('next_check_at')
    .limit(limit)
    .execute() as Promise<DomainRow[]>

/** Each verified domain once (several projects may verify one name): the server's SPF self-check evaluates their return paths. */
export const sendingDomains = (db: Db) =>
  db
    .selectFrom('domains')
    .select(['name', 'return_path_label'])
    .distinct()
    .where('status', '=', 'SUCCESS')
    .orderBy('name')
    .execute()

/** Whether a host is the return-path host (<label>.<domain>) of a sending domain of any project: mail to it is ours to take. */
export async function isReturnPathHost(db: Db, host: string): Promise<boolean> {
  const dot = host.indexOf('.')
  if (dot <= 0) return false
  const found = await db
    .selectFrom('domains')
    .select('id')
    .where('name', '=', host.slice(dot + 1))
    .where('return_path_label', '=', host.slice(0, dot))
    .limit(1)
    .executeTakeFirst()
  return found !== undefined
}
