import type { Db } from '../../src/db/schema.ts'

/*
 * Rows written straight to the database, for tests below the API (repositories, migrations): a
 * project and a sending domain with what their tables require, nothing more.
 */

export async function insertProject(db: Db, name: string, at: number): Promise<number> {
  const row = await db
    .insertInto('projects')
    .values({ name, disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** A verified domain of the project, with stand-ins for its keys. */
export async function insertDomain(db: Db, projectId: number, name: string, at: number): Promise<number> {
  const row = await db
    .insertInto('domains')
    .values({
      project_id: projectId,
      name,
      region: 'us-east-1',
      status: 'SUCCESS',
      return_path_label: 'mst',
      dkim_selector: 's',
      dkim_public_key: 'k',
      dkim_private_key: 'k',
      ed25519_selector: 'e',
      ed25519_public_key: 'k',
      ed25519_private_key: 'k',
      findings: null,
      error_message: null,
      last_checked_at: null,
      next_check_at: at,
      verified_at: at,
      failing_since: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}
