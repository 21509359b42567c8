import { open, rename, stat } from 'node:fs/promises'
import { PRIVATE_FILE, tempBeside } from '../../lib/files.ts'
import type { Db } from '../../db/schema.ts'

/*
 * The owner of contact_import_parts: an import's upload kept in the database, in parts, until the
 * import ends. Any process sharing the database may claim the import; the one that received the
 * upload writes it here, and the one that runs it reads it back to a file of its own.
 */

/** Bytes per part: a row small enough to write and read without holding much in memory. */
const PART_BYTES = 1024 * 1024

/** Keeps the upload at `path` as the parts of import `importId`, in the caller's transaction. */
export async function keepUpload(db: Db, importId: string, path: string): Promise<void> {
  const file = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(PART_BYTES)
    for (let part = 0; ; part++) {
      const { bytesRead } = await file.read(buffer, 0, PART_BYTES, null)
      if (bytesRead === 0) return
      await db.insertInto('contact_import_parts').values({ import_id: importId, part, bytes: Buffer.from(buffer.subarray(0, bytesRead)) }).execute()
    }
  } finally {
    await file.close()
  }
}

/** Writes import `importId`'s upload to `path` from its parts, unless this process has it there already. */
export async function fetchUpload(db: Db, importId: string, path: string): Promise<void> {
  if (await stat(path).then(() => true, () => false)) return
  const partial = tempBeside(path)
  const file = await open(partial, 'w', PRIVATE_FILE)
  try {
    for (let part = 0; ; part++) {
      const row = await db.selectFrom('contact_import_parts').select('bytes').where('import_id', '=', importId).where('part', '=', part).executeTakeFirst()
      if (!row) break
      await file.write(row.bytes)
    }
  } finally {
    await file.close()
  }
  // Whole or not there: a process stopped halfway leaves only the partial file, removed as a leftover.
  await rename(partial, path)
}

/** Forgets the upload once its import ended. */
export const dropUpload = (db: Db, importId: string) => db.deleteFrom('contact_import_parts').where('import_id', '=', importId).execute()
