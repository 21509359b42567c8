import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../src/db/client.ts'

/**
 * SQLite's `jsonb_patch` for PostgreSQL, which has no merge patch of its own: RFC 7396, so a null
 * value removes its key and an object merges into the object under its key, recursively; any
 * other value replaces what was there. With the same name and arguments as SQLite's, the same
 * SQL merges contact data on both (src/db/json.ts). SQLite has it built in: nothing to do there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return
  // STRICT, as SQLite's: a NULL argument gives NULL. So a key the target lacks recurses on a JSON null.
  await sql`CREATE FUNCTION jsonb_patch(target jsonb, patch jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
    DECLARE
      name text;
      value jsonb;
    BEGIN
      IF jsonb_typeof(patch) <> 'object' THEN RETURN patch; END IF;
      IF jsonb_typeof(target) <> 'object' THEN target := '{}'; END IF;
      FOR name, value IN SELECT * FROM jsonb_each(patch) LOOP
        IF jsonb_typeof(value) = 'null' THEN
          target := target - name;
        ELSIF jsonb_typeof(value) = 'object' THEN
          target := target || jsonb_build_object(name, jsonb_patch(coalesce(target -> name, 'null'), value));
        ELSE
          target := target || jsonb_build_object(name, value);
        END IF;
      END LOOP;
      RETURN target;
    END
  $$`.execute(db)
}
