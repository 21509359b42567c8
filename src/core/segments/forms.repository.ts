import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Db, SignupFormTable } from '../../db/schema.ts'

export type FormRow = Selectable<SignupFormTable>

export const insertForm = (db: Db, row: Insertable<SignupFormTable>) => db.insertInto('signup_forms').values(row).returningAll().executeTakeFirstOrThrow()

/** A form by its id alone: the public page and its posts name no project. */
export const findFormById = (db: Db, id: string) => db.selectFrom('signup_forms').selectAll().where('id', '=', id).executeTakeFirst()

export const findForm = (db: Db, projectId: number, id: string) =>
  db.selectFrom('signup_forms').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()

export const listForms = (db: Db, projectId: number) => db.selectFrom('signup_forms').selectAll().where('project_id', '=', projectId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()

export const updateForm = (db: Db, id: string, changes: Updateable<SignupFormTable>) => db.updateTable('signup_forms').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow()

export const deleteForm = (db: Db, projectId: number, id: string) => db.deleteFrom('signup_forms').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
