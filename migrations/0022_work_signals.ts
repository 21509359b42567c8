import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'
import { WORK_CHANNEL, ANNOUNCED_TABLES } from '../src/db/notifications.ts'

/**
 * On PostgreSQL, a statement that inserts work notifies every process (the table's name is the
 * payload), so an idle one takes it at once rather than at its next poll. Inserts only: claims and
 * settlements update these tables all the time, and a wake for each would wake every process for
 * nothing. Work that becomes due by time (a retry) is found by polling, as before. SQLite's
 * processes share one machine and poll; nothing changes there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  await sql`CREATE FUNCTION notify_work() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify(${sql.lit(WORK_CHANNEL)}, TG_TABLE_NAME);
      RETURN NULL;
    END
  $$`.execute(db)
  for (const table of ANNOUNCED_TABLES) {
    await sql`CREATE TRIGGER ${sql.ref(`${table}_notify_work`)} AFTER INSERT ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION notify_work()`.execute(db)
  }
}
