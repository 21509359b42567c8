import { findReport, listReports, type ReceivedReportRow } from '../../core/inbound/index.ts'
import type { ReceivedOutcome } from '../../db/schema.ts'
import { notFound } from '../../lib/errors.ts'
import { CliError } from '../cli-error.ts'
import { idArg, JSON_FLAG, print, table, type Command } from '../command.ts'

const OUTCOMES: ReceivedOutcome[] = ['applied', 'duplicate', 'ignored', 'untrusted']

/** A row as the operator reads it: its JSON columns opened, times as ISO 8601. */
const shown = (row: Omit<ReceivedReportRow, 'raw'>) => ({
  id: row.id,
  receivedAt: new Date(row.received_at).toISOString(),
  remoteAddress: row.remote_address,
  mailFrom: row.mail_from,
  rcptTo: JSON.parse(row.rcpt_to) as string[],
  kind: row.kind,
  subject: row.subject,
  messageId: row.message_id,
  outcome: row.outcome,
  reason: row.reason,
  verdicts: JSON.parse(row.verdicts) as unknown[],
  size: row.raw_size,
})

export const inboundReportsCommand: Command = {
  name: 'inbound reports',
  summary: 'List the bounces and complaints the MX listener received, newest first, and why each changed what it did (or nothing)',
  flags: { outcome: { description: OUTCOMES.join(', '), value: 'outcome' }, limit: { description: 'At most this many (50)', value: 'n' }, ...JSON_FLAG },
  async run(context) {
    const outcome = context.flags.outcome
    if (outcome !== undefined && !OUTCOMES.includes(outcome as ReceivedOutcome)) throw new CliError(`--outcome must be one of ${OUTCOMES.join(', ')}`)
    const limit = typeof context.flags.limit === 'string' ? idArg(context.flags.limit, '--limit') : 50
    const rows = (await context.withDb((db) => listReports(db, { limit, outcome: outcome as ReceivedOutcome | undefined }))).map(shown)
    print(context, rows, () =>
      rows.length === 0
        ? ['No reports received']
        : table([
            ['ID', 'RECEIVED', 'FROM', 'KIND', 'OUTCOME', 'WHY'],
            ...rows.map((r) => [String(r.id), r.receivedAt, r.remoteAddress ?? '-', r.kind, r.outcome, oneLine(r.reason ?? '-').slice(0, 100)]),
          ]),
    )
  },
}

export const inboundShowCommand: Command = {
  name: 'inbound show',
  summary: 'Show one received report: its envelope, what was decided for each delivery it named, and the message',
  args: 'ID',
  flags: JSON_FLAG,
  async run(context) {
    const id = idArg(context.args[0], 'Report ID')
    const row = await context.withDb((db) => findReport(db, id))
    if (!row) throw notFound(`Received report ${id}`)
    const report = { ...shown(row), message: Buffer.from(row.raw).toString('utf8'), truncated: row.raw_size > row.raw.byteLength }
    print(context, report, () => [
      `Report ${report.id}, received ${report.receivedAt} from ${report.remoteAddress ?? 'unknown'}`,
      oneLine(`Envelope: MAIL FROM:<${report.mailFrom}> RCPT TO:${report.rcptTo.map((to) => `<${to}>`).join(' ')}`),
      `Kind: ${report.kind}; outcome: ${report.outcome}${report.reason ? `: ${oneLine(report.reason)}` : ''}`,
      ...report.verdicts.map((v) => `  ${oneLine(JSON.stringify(v))}`),
      '',
      report.message.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '?'),
      ...(report.truncated ? [`[${report.size - row.raw.byteLength} more bytes not kept]`] : []),
    ])
  },
}

/** Control characters shown as `?`: what is shown was written by strangers, and a terminal obeys escapes. */
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
