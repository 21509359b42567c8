import type { Selectable } from 'kysely'
import type { Db, ReceivedOutcome, ReceivedReportTable } from '../../db/schema.ts'

/** What the operator reads of a report: enough of its bytes to see what it was, not all of a large one. */
export const RAW_KEPT = 32 * 1024
/**
 * Reports kept of each outcome, newest first: a flood of junk at the feedback address cannot
 * fill the disk, nor push out the record of what real reports changed. Applied reports come only
 * as fast as mail bounces or is complained about, and are what the operator looks back on; the
 * others come as fast as anyone likes to send them.
 */
export const REPORTS_KEPT: Readonly<Record<ReceivedOutcome, number>> = { applied: 10_000, untrusted: 2000, duplicate: 1000, ignored: 1000 }

/** What was decided about one delivery a report named (or about the report, when it named none). */
export interface Verdict {
  deliveryId: number | null
  /** hard-bounce, bounce, delay or complaint, when the report said one. */
  effect?: string
  result: 'applied' | 'duplicate' | 'ignored' | 'untrusted'
  reason?: string
  /** What the report said of the recipient, in a line: a bounce's status and diagnostic, a complaint's feedback type. */
  said?: string
}

export interface ReceivedReport {
  receivedAt: number
  remoteAddress: string | null
  mailFrom: string
  rcptTo: string[]
  kind: string
  subject: string | null
  messageId: string | null
  outcome: ReceivedOutcome
  reason: string | null
  verdicts: Verdict[]
  raw: Uint8Array
  /** The bytes it had in all, when `raw` is only its first ones. */
  size?: number
  /** The projects whose deliveries it named: each lists the report among its own. */
  projectIds?: readonly number[]
}

export type ReceivedReportRow = Selectable<ReceivedReportTable>

/** Keeps a received report, and forgets the oldest of its outcome past REPORTS_KEPT. */
export async function recordReport(db: Db, report: ReceivedReport): Promise<number> {
  const { id } = await db
    .insertInto('received_reports')
    .values({
      received_at: report.receivedAt,
      remote_address: report.remoteAddress,
      mail_from: report.mailFrom,
      rcpt_to: JSON.stringify(report.rcptTo),
      kind: report.kind,
      subject: report.subject?.slice(0, 500) ?? null,
      message_id: report.messageId?.slice(0, 500) ?? null,
      outcome: report.outcome,
      reason: report.reason,
      verdicts: JSON.stringify(report.verdicts),
      raw: report.raw.subarray(0, RAW_KEPT),
      raw_size: report.size ?? report.raw.byteLength,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const projects = [...new Set(report.projectIds ?? [])]
  if (projects.length > 0) await db.insertInto('received_report_projects').values(projects.map((project_id) => ({ project_id, report_id: id }))).execute()
  await forgetOldest(db, report.outcome)
  return id
}

/** Deletes the reports of an outcome older than its newest REPORTS_KEPT (index received_reports_outcome). */
async function forgetOldest(db: Db, outcome: ReceivedOutcome): Promise<void> {
  const oldestKept = await db
    .selectFrom('received_reports')
    .select('id')
    .where('outcome', '=', outcome)
    .orderBy('id', 'desc')
    .offset(REPORTS_KEPT[outcome] - 1)
    .limit(1)
    .executeTakeFirst()
  if (oldestKept) await db.deleteFrom('received_reports').where('outcome', '=', outcome).where('id', '<', oldestKept.id).execute()
}

/** The latest reports, newest first; only those of one outcome when given. */
export function listReports(db: Db, options: { limit: number; outcome?: ReceivedOutcome }): Promise<Omit<ReceivedReportRow, 'raw'>[]> {
  let query = db.selectFrom('received_reports').select(['id', 'received_at', 'remote_address', 'mail_from', 'rcpt_to', 'kind', 'subject', 'message_id', 'outcome', 'reason', 'verdicts', 'raw_size'])
  if (options.outcome) query = query.where('outcome', '=', options.outcome)
  return query.orderBy('id', 'desc').limit(options.limit).execute()
}

export const findReport = (db: Db, id: number) => db.selectFrom('received_reports').selectAll().where('id', '=', id).executeTakeFirst()

const LISTED = ['received_reports.id', 'received_at', 'remote_address', 'mail_from', 'kind', 'subject', 'message_id', 'outcome', 'reason', 'verdicts'] as const

/** What a project's list of reports may be narrowed to. */
export interface ProjectReportFilter {
  outcome?: ReceivedOutcome
  /** dsn, arf or plain-bounce. */
  kind?: string
}

/** A page of the reports that named a delivery of the project, newest first, and how many there are. */
export async function listProjectReports(db: Db, projectId: number, options: { page: number; pageSize: number } & ProjectReportFilter) {
  let query = db.selectFrom('received_reports').innerJoin('received_report_projects', 'received_report_projects.report_id', 'received_reports.id').where('received_report_projects.project_id', '=', projectId)
  if (options.outcome) query = query.where('outcome', '=', options.outcome)
  if (options.kind) query = query.where('kind', '=', options.kind)
  const [rows, counted] = await Promise.all([
    query.select(LISTED).orderBy('received_reports.id', 'desc').limit(options.pageSize).offset((options.page - 1) * options.pageSize).execute(),
    query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(counted.n) }
}
