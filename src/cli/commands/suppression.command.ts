import * as suppressions from '../../core/suppressions/suppressions.service.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { CliError } from '../cli-error.ts'
import { idArg, JSON_FLAG, print, stringFlag, table, type Command, type Context } from '../command.ts'

const projectFlag = { project: { description: 'Project ID', value: 'id', required: true } }
const projectOf = (context: Context) => idArg(stringFlag(context, 'project'), '--project')
const addressOf = (context: Context) => {
  if (!context.args[0]) throw new CliError('Give the email address')
  return context.args[0]
}

export const suppressionListCommand: Command = {
  name: 'suppression list',
  summary: "List a project's suppressed addresses",
  flags: { ...projectFlag, ...JSON_FLAG },
  async run(context) {
    const projectId = projectOf(context)
    const { data } = await context.withDb((db) => suppressions.listSuppressions(db, projectId, 1, 1000))
    print(context, data, () =>
      data.length === 0 ? ['No suppressed addresses'] : table([['EMAIL', 'REASON', 'SINCE', 'DETAIL'], ...data.map((s) => [s.email, s.reason, s.createdAt, (s.detail ?? '').slice(0, 60)])]),
    )
  },
}

export const suppressionAddCommand: Command = {
  name: 'suppression add',
  summary: 'Suppress an address in a project: mail to it is not sent',
  args: 'EMAIL',
  flags: { ...projectFlag, ...JSON_FLAG },
  async run(context) {
    const projectId = projectOf(context)
    const email = addressOf(context)
    await context.withDb((db) => writeTransaction(db, (trx) => suppressions.suppress(trx, projectId, email, 'manual', null, Date.now())))
    print(context, { projectId, email, suppressed: true }, () => [`${email} is suppressed in project ${projectId}`])
  },
}

export const suppressionRemoveCommand: Command = {
  name: 'suppression remove',
  summary: 'Take an address off a project\'s suppression list',
  args: 'EMAIL',
  flags: { ...projectFlag, ...JSON_FLAG },
  async run(context) {
    const projectId = projectOf(context)
    const email = addressOf(context)
    await context.withDb((db) => writeTransaction(db, (trx) => suppressions.unsuppress(trx, projectId, email)))
    print(context, { projectId, email, suppressed: false }, () => [`${email} is no longer suppressed in project ${projectId}`])
  },
}
