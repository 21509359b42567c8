import type { Kysely } from 'kysely'

/** Fingerprints rewritten a thousand at a time. */
const CHUNK = 1000

/**
 * What a report was applied under is now its delivery and the class of its effect
 * (`delivery:7|hard-bounce`), without the status or feedback type the report wrote
 * (`delivery:7|hard-bounce|5.1.1`): those let one report be applied again under any number of
 * variants. The fingerprints kept are rewritten so that what was applied stays applied (a hard
 * bounce also covers the bounce class), and are pruned by age, which needs an index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('inbound_reports_created_at').on('inbound_reports').column('created_at').execute()
  let after = ''
  for (;;) {
    const rows: Array<{ fingerprint: string; created_at: number }> = await db
      .selectFrom('inbound_reports')
      .select(['fingerprint', 'created_at'])
      .where('fingerprint', '>', after)
      .orderBy('fingerprint')
      .limit(CHUNK)
      .execute()
    if (rows.length === 0) return
    after = rows.at(-1)!.fingerprint
    const old = rows.filter((row) => row.fingerprint.split('|').length > 2)
    if (old.length === 0) continue
    const rewritten = old.flatMap((row) => classKeys(row.fingerprint).map((fingerprint) => ({ fingerprint, created_at: row.created_at })))
    await db.insertInto('inbound_reports').values(rewritten).onConflict((oc) => oc.column('fingerprint').doNothing()).execute()
    await db.deleteFrom('inbound_reports').where('fingerprint', 'in', old.map((row) => row.fingerprint)).execute()
  }
}

/** `delivery:7|hard-bounce|5.1.1` -> `delivery:7|hard-bounce` and `delivery:7|bounce`; the other effects lose their detail. */
function classKeys(fingerprint: string): string[] {
  const [delivery, effect] = fingerprint.split('|')
  return effect === 'hard-bounce' ? [`${delivery}|hard-bounce`, `${delivery}|bounce`] : [`${delivery}|${effect}`]
}
