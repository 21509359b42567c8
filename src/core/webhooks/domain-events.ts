import type { Db } from '../../db/schema.ts'
import { emitWebhookEvent } from './emit.ts'
import { domainEventData, type DomainFacts } from './payload.ts'

export type CheckedDomain = DomainFacts & { project_id: number }

/** domain.verified when a check moved the domain to SUCCESS, domain.failed when to FAILED. */
export async function emitDomainStatus(db: Db, before: Pick<CheckedDomain, 'status'>, after: CheckedDomain, now: number): Promise<void> {
  if (before.status === after.status) return
  const type = after.status === 'SUCCESS' ? 'domain.verified' : after.status === 'FAILED' ? 'domain.failed' : undefined
  if (type) await emitWebhookEvent(db, after.project_id, type, domainEventData(after), now)
}
