import type { Db } from '../../db/schema.ts'
import { deleteDeliveriesNaming } from './webhook-deliveries.repository.ts'

/**
 * Erases the payload history that names a contact: every webhook delivery of the project whose
 * payload holds its id or its address (contact events, and email events of mail to it), sent or
 * waiting. Answers how many.
 */
export const eraseDeliveriesNaming = (db: Db, projectId: number, contact: { id: string; emailKey: string }) =>
  deleteDeliveriesNaming(db, projectId, [contact.id, contact.emailKey])
