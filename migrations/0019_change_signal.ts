import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'
import { CHANGES_CHANNEL } from '../src/db/notifications.ts'

/** The tables whose rows processes keep in memory (keys, projects, domains): a change to any moves the signal. */
export const SIGNALLED_TABLES = ['projects', 'api_keys', 'domains'] as const

/**
 * What caches check before trusting themselves (`changeVersion` in src/db/client.ts). SQLite has
 * one already, `PRAGMA data_version`, so this changes nothing there. On PostgreSQL a one-row
 * table holds a version that a statement trigger on each signalled table moves, in the
 * transaction that changes it: every process sees the change once it is committed. The trigger
 * also announces it (NOTIFY), so that processes listening read the version again at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`CREATE TABLE change_signal (id smallint PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)`.execute(db)
  await sql`INSERT INTO change_signal (id, version) VALUES (1, 0)`.execute(db)
  await sql`CREATE FUNCTION move_change_signal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE change_signal SET version = version + 1 WHERE id = 1;
      PERFORM pg_notify(${sql.lit(CHANGES_CHANNEL)}, TG_TABLE_NAME);
      RETURN NULL;
    END
  $$`.execute(db)
  for (const table of SIGNALLED_TABLES) {
    await sql`CREATE TRIGGER ${sql.ref(`${table}_change_signal`)} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION move_change_signal()`.execute(db)
  }
}
