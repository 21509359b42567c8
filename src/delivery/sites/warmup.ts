import type { Db } from '../../db/schema.ts'

/**
 * Whether this server warms up: as the warmup setting says, or with `auto`, as was decided when
 * the data directory was created (on, unless it had delivered mail before warm-up existed).
 */
export async function warmupIsOn(db: Db, setting: 'auto' | 'on' | 'off'): Promise<boolean> {
  if (setting !== 'auto') return setting === 'on'
  const row = await db.selectFrom('server_settings').select('value').where('key', '=', 'warmup').executeTakeFirst()
  return row?.value !== 'off'
}
