import type { Config } from '../../config/config-schema.ts'
import { ALL_EVENTS } from '../../core/webhooks/event-types.ts'
import * as webhooks from '../../core/webhooks/webhooks.service.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { hostAddresses } from '../../dns/host-addresses.ts'
import { createResolver } from '../../dns/resolver.ts'
import { confirmOrStop, idArg, JSON_FLAG, print, stringFlag, table, YES_FLAG, type Command, type Context } from '../command.ts'

/*
 * A project's webhooks, through the service the HTTP routes call: the same URL checks (no private
 * addresses unless webhookAllowPrivateTargets), the same limits, the secret sealed alike.
 */

const projectFlag = { project: { description: 'Project ID', value: 'id', required: true } }
const projectOf = (context: Context) => idArg(stringFlag(context, 'project'), '--project')
/** A project has at most 20 webhooks: one page of the service holds them all. */
const ALL = 100

const targetsOf = (config: Config) => ({
  allowPrivate: config.webhookAllowPrivateTargets,
  resolve: hostAddresses(createResolver(config.dnsServers, config.dnsTimeoutMs)),
})

export const webhookListCommand: Command = {
  name: 'webhook list',
  summary: "List a project's webhooks: URL, events, whether enabled, failures in a row",
  flags: { ...projectFlag, ...JSON_FLAG },
  async run(context) {
    const projectId = projectOf(context)
    const { webhooks: list } = await context.withDb((db) => webhooks.listWebhooks(db, projectId, 1, ALL))
    print(context, list, () =>
      list.length === 0
        ? [`No webhooks yet: mailstead webhook add --project ${projectId} --url URL --events TYPES`]
        : table([
            ['ID', 'URL', 'EVENTS', 'STATUS', 'FAILURES'],
            ...list.map((w) => [w.id, w.url, w.events.join(','), w.enabled ? 'enabled' : `disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`, String(w.consecutiveFailures)]),
          ]),
    )
  },
}

export const webhookAddCommand: Command = {
  name: 'webhook add',
  summary: 'Add a webhook to a project and print its signing secret (shown only once)',
  flags: {
    ...projectFlag,
    url: { description: 'http(s) URL that receives the events as POSTs', value: 'url', required: true },
    events: { description: `Event types, comma-separated (email.delivered,email.bounced...), or ${ALL_EVENTS} for all`, value: 'types', required: true },
    ...JSON_FLAG,
  },
  async run(context) {
    const projectId = projectOf(context)
    const events = stringFlag(context, 'events').split(',').map((type) => type.trim()).filter(Boolean)
    const created = await context.withDb(async (db, { config }) => {
      // Checked before the write, as the HTTP route does: it may ask DNS, which no transaction waits for.
      const url = await webhooks.checkUrl(stringFlag(context, 'url'), targetsOf(config))
      return writeTransaction(db, (trx) => webhooks.createWebhook(trx, projectId, { url, events }, config.secret, Date.now()))
    })
    print(context, created, () => [
      `Created webhook ${created.id} for project ${projectId}: ${created.url} (${created.events.join(', ')})`,
      `  signing secret: ${created.secret}`,
      'The secret is shown only this once: keep it where the receiver checks signatures.',
    ])
  },
}

export const webhookRemoveCommand: Command = {
  name: 'webhook remove',
  summary: 'Remove a webhook and its deliveries (asks first)',
  args: 'ID',
  flags: { ...projectFlag, ...YES_FLAG, ...JSON_FLAG },
  async run(context) {
    const projectId = projectOf(context)
    const id = context.args[0]!
    await context.withDb(async (db) => {
      const webhook = await webhooks.getWebhook(db, projectId, id)
      await confirmOrStop(context, `Remove the webhook ${webhook.id} (${webhook.url}) of project ${projectId}? Its undelivered events are dropped.`)
      await writeTransaction(db, (trx) => webhooks.deleteWebhook(trx, projectId, id))
      print(context, { id: webhook.id, projectId, url: webhook.url, removed: true }, () => [`Removed webhook ${webhook.id} (${webhook.url}) from project ${projectId}`])
    })
  },
}
