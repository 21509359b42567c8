import { getProject } from '../../core/projects/projects.service.ts'
import { mailboxOf } from '../../core/emails/mailbox.ts'
import { enqueueEmail, prepareEmail } from '../../core/emails/send.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { linkSettingsOf, sendSettingsOf } from '../../settings-of.ts'
import { isoTime } from '../../lib/clock.ts'
import { CliError } from '../cli-error.ts'
import { idArg, JSON_FLAG, print, stringFlag, type Command } from '../command.ts'

/**
 * A quick test email, through the send path the HTTP API takes (prepareEmail, then enqueueEmail
 * in one transaction): the sender's domain must be verified, suppressed recipients are dropped,
 * and the running server delivers it like any other, woken by PostgreSQL's NOTIFY or its polling.
 */
export const sendCommand: Command = {
  name: 'send',
  summary: 'Queue an email, as the HTTP API does, for the running server to deliver: a quick test of sending',
  flags: {
    project: { description: 'Project ID', value: 'id', required: true },
    from: { description: 'Sender on a verified domain of the project: ada@example.com or "Ada <ada@example.com>"', value: 'address', required: true },
    to: { description: 'Recipient', value: 'address', required: true },
    subject: { description: 'Subject', value: 'subject', required: true },
    text: { description: 'Plain-text body (--text, --html or both)', value: 'text' },
    html: { description: 'HTML body (--text, --html or both)', value: 'html' },
    ...JSON_FLAG,
  },
  async run(context) {
    const projectId = idArg(stringFlag(context, 'project'), '--project')
    const { text, html } = context.flags
    if (typeof text !== 'string' && typeof html !== 'string') throw new CliError('Give the body: --text TEXT, --html HTML, or both')
    const request = {
      from: mailboxOf(stringFlag(context, 'from'), 'from'),
      to: [mailboxOf(stringFlag(context, 'to'), 'to')],
      subject: stringFlag(context, 'subject'),
      ...(typeof text === 'string' && { text }),
      ...(typeof html === 'string' && { html }),
    }
    const sent = await context.withDb(async (db, { config }) => {
      await getProject(db, projectId)
      const now = Date.now()
      // Built and checked outside the transaction, as the HTTP API does: nothing is written when it fails.
      const email = await prepareEmail(db, projectId, request, now, undefined, linkSettingsOf(config))
      const queued = await writeTransaction(db, (trx) => enqueueEmail(trx, email, sendSettingsOf(config), now))
      return { id: queued.emailId, projectId, from: email.from, to: email.recipients.to, subject: email.subject, queuedAt: isoTime(now) }
    })
    print(context, sent, () => [`Queued email ${sent.id} for ${sent.to.join(', ')}: the running server delivers it (mailstead queue list shows it until then)`])
  },
}
