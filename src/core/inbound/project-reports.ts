import type { Db } from '../../db/schema.ts'
import { isoTime } from '../../lib/clock.ts'
import { deliveriesByIds } from '../queue/index.ts'
import { listProjectReports, type ProjectReportFilter, type Verdict } from './received-reports.repository.ts'

/** What Mailstead did about one delivery a report named, for the project that sent it. */
export type Action = 'suppressed' | 'recorded' | 'none'

/**
 * A verdict in words: what changed (the address suppressed and its contact unsubscribed, a soft
 * bounce or a delay recorded) or why nothing did. Hard bounces and complaints go through
 * `recipientRejected` (src/core/reactions.ts), which suppresses and unsubscribes.
 */
export function actionOf(verdict: Verdict): { action: Action; description: string } {
  if (verdict.result === 'duplicate') return { action: 'none', description: 'Nothing more: the same report about this delivery was applied already' }
  if (verdict.result === 'untrusted') return { action: 'none', description: `Ignored, not trusted: ${verdict.reason ?? 'it proved no delivery of this server'}` }
  if (verdict.result === 'ignored') return { action: 'none', description: `Ignored: ${verdict.reason ?? 'it said nothing to act on'}` }
  switch (verdict.effect) {
    case 'hard-bounce':
      return { action: 'suppressed', description: 'The address was suppressed in this project and its contact unsubscribed (a permanent bounce)' }
    case 'complaint':
      return { action: 'suppressed', description: 'The address was suppressed in this project and its contact unsubscribed (a spam complaint)' }
    case 'bounce':
      return { action: 'recorded', description: 'Recorded as a temporary bounce on the email; the address was not suppressed' }
    case 'delay':
      return { action: 'recorded', description: 'Recorded as a delay on the email; the address was not suppressed' }
    default:
      return { action: 'recorded', description: 'Recorded on the email' }
  }
}

/**
 * The bounce and complaint reports the MX listener received about the project's mail, newest
 * first, each with what was done about each of the project's deliveries it named. What it said of
 * other projects' deliveries is left out.
 */
export async function projectReports(db: Db, projectId: number, options: { page: number; pageSize: number } & ProjectReportFilter) {
  const { rows, total } = await listProjectReports(db, projectId, options)
  const verdicts = new Map(rows.map((row) => [row.id, JSON.parse(row.verdicts) as Verdict[]]))
  const named = [...new Set([...verdicts.values()].flat().flatMap((v) => (v.deliveryId === null ? [] : [v.deliveryId])))]
  const deliveries = new Map((await deliveriesByIds(db, named)).filter((d) => d.project_id === projectId).map((d) => [d.id, d]))
  const reports = rows.map((row) => ({
    id: row.id,
    receivedAt: isoTime(row.received_at),
    kind: row.kind,
    remoteAddress: row.remote_address,
    mailFrom: row.mail_from,
    subject: row.subject,
    messageId: row.message_id,
    outcome: row.outcome,
    reason: row.reason,
    actions: verdicts.get(row.id)!.flatMap((verdict) => {
      const delivery = verdict.deliveryId === null ? undefined : deliveries.get(verdict.deliveryId)
      if (!delivery) return []
      return [{ emailId: delivery.email_id, recipient: delivery.recipient, effect: verdict.effect ?? null, said: verdict.said ?? null, result: verdict.result, ...actionOf(verdict) }]
    }),
  }))
  return { reports, page: options.page, pageSize: options.pageSize, total }
}
