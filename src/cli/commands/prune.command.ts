import { pruneBodies, retentionCutoff } from '../../core/emails/retention.ts'
import type { Db } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { isoTime } from '../../lib/clock.ts'
import { confirmOrStop, JSON_FLAG, print, YES_FLAG, type Command } from '../command.ts'
import { formatBytes } from './backup.command.ts'

export const pruneCommand: Command = {
  name: 'prune',
  summary: 'Delete the bodies of emails older than retentionDays whose deliveries are settled; events stay',
  flags: { 'dry-run': { description: 'Count what would be deleted; delete nothing', boolean: true }, ...YES_FLAG, ...JSON_FLAG },
  async run(context) {
    const dryRun = context.flags['dry-run'] === true
    await context.withDb(async (db, { config }) => {
      const days = config.retentionDays
      if (days === 0) {
        print(context, { retentionDays: 0, dryRun, emails: 0, bytes: 0 }, () => ['retentionDays is 0: bodies are kept forever, nothing to prune'])
        return
      }
      const cutoff = retentionCutoff(Date.now(), days)
      // One transaction a chunk, as the server's pruner does: a running server's writes wait little.
      const write = <T>(work: (trx: Db) => Promise<T>) => writeTransaction(db, work)
      const due = await pruneBodies(db, cutoff, { write, dryRun: true })
      const before = `created before ${isoTime(cutoff)} (${days} day${days === 1 ? '' : 's'})`
      if (!dryRun && due.emails > 0) await confirmOrStop(context, `Delete the bodies of ${emails(due.emails)} ${before}? Their events and status stay`)
      const done = dryRun || due.emails === 0 ? due : await pruneBodies(db, cutoff, { write })
      print(context, { retentionDays: days, cutoff: isoTime(cutoff), dryRun, ...done }, () => [
        dryRun
          ? `Would delete the bodies of ${emails(done.emails)} ${before}: ${formatBytes(done.bytes)}`
          : `Deleted the bodies of ${emails(done.emails)} ${before}: ${formatBytes(done.bytes)}; their events and status stay`,
      ])
    })
  },
}

const emails = (n: number) => `${n} email${n === 1 ? '' : 's'}`
