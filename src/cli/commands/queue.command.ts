import type { DeliveryState } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { messageLost } from '../../core/campaigns/index.ts'
import { cancelDelivery, listQueue, queueStats, retryDeliveries, toQueued } from '../../core/queue/index.ts'
import { shapingOf } from '../../delivery/sites/configure.ts'
import { siteReports, type SiteReport } from '../../delivery/sites/site-report.ts'
import { warmupIsOn } from '../../delivery/sites/warmup.ts'
import { CliError } from '../cli-error.ts'
import { confirmOrStop, idArg, JSON_FLAG, print, table, YES_FLAG, type Command } from '../command.ts'

const STATES: DeliveryState[] = ['scheduled', 'queued', 'sending', 'deferred', 'paused', 'delivered', 'bounced', 'failed', 'cancelled', 'suppressed']

export const queueStatsCommand: Command = {
  name: 'queue stats',
  summary: 'Count deliveries by state, and pending ones by destination domain',
  flags: JSON_FLAG,
  async run(context) {
    const stats = await context.withDb((db) => queueStats(db))
    print(context, stats, () => [
      ...table([['STATE', 'COUNT'], ...STATES.map((s) => [s, String(stats.byState[s] ?? 0)])]),
      '',
      ...(stats.byDomain.length ? table([['PENDING FOR', 'COUNT'], ...stats.byDomain.map((d) => [d.domain, String(d.count)])]) : ['Nothing pending']),
    ])
  },
}

export const queueListCommand: Command = {
  name: 'queue list',
  summary: 'List pending deliveries (or those in --state), soonest first',
  flags: { state: { description: STATES.join(', '), value: 'state' }, limit: { description: 'At most this many (100)', value: 'n' }, ...JSON_FLAG },
  async run(context) {
    const state = context.flags.state
    if (state !== undefined && !STATES.includes(state as DeliveryState)) throw new CliError(`--state must be one of ${STATES.join(', ')}`)
    const limit = typeof context.flags.limit === 'string' ? idArg(context.flags.limit, '--limit') : 100
    const rows = (await context.withDb((db) => listQueue(db, { state: state as DeliveryState | undefined, limit }))).map(toQueued)
    print(context, rows, () =>
      rows.length === 0
        ? ['Nothing to show']
        : table([
            ['ID', 'STATE', 'RECIPIENT', 'ATTEMPTS', 'NEXT ATTEMPT', 'LAST RESPONSE'],
            ...rows.map((r) => [String(r.id), r.state, r.recipient, String(r.attempts), r.nextAttemptAt, (r.lastResponse ?? '-').slice(0, 60)]),
          ]),
    )
  },
}

export const queueRetryCommand: Command = {
  name: 'queue retry',
  summary: 'Try a deferred or failed delivery again now (or every deferred one)',
  args: '[ID]',
  flags: { 'all-deferred': { description: 'Every deferred delivery (asks first)', boolean: true }, ...YES_FLAG, ...JSON_FLAG },
  async run(context) {
    const all = context.flags['all-deferred'] === true
    if (all && context.args[0] !== undefined) throw new CliError('Give a delivery ID or --all-deferred, not both')
    const target = all ? 'all-deferred' : idArg(context.args[0], 'Delivery ID')
    if (all) await confirmOrStop(context, 'Send every deferred delivery again now?')
    const retried = await context.withDb((db) => writeTransaction(db, (trx) => retryDeliveries(trx, target, Date.now(), messageLost)))
    print(context, { target: all ? 'all-deferred' : target, retried }, () => [`${retried} ${retried === 1 ? 'delivery' : 'deliveries'} queued again`])
  },
}

export const queueCancelCommand: Command = {
  name: 'queue cancel',
  summary: 'Take a delivery that has not left yet out of the queue (asks first)',
  args: 'ID',
  flags: { ...YES_FLAG, ...JSON_FLAG },
  async run(context) {
    const id = idArg(context.args[0], 'Delivery ID')
    await confirmOrStop(context, `Cancel delivery ${id}? Its recipient will not get the email.`)
    await context.withDb((db) => writeTransaction(db, (trx) => cancelDelivery(trx, id, Date.now())))
    print(context, { id, state: 'cancelled' }, () => [`Delivery ${id} cancelled`])
  },
}

export const queueSitesCommand: Command = {
  name: 'queue sites',
  summary: 'List destination sites: queue, limits, rate of the last minute, throttles, suspensions and warm-up',
  flags: JSON_FLAG,
  async run(context) {
    const sites = await context.withDb(async (db, { config }) => siteReports(db, shapingOf(config, await warmupIsOn(db, config.warmup)), Date.now()))
    print(context, sites, () =>
      sites.length === 0
        ? ['No sites yet: nothing has been sent']
        : table([['SITE', 'QUEUED', 'CONN', 'MSG/CONN', 'MSG/MIN', 'RATE/MIN', 'STATE'], ...sites.map(siteLine)]),
    )
  },
}

function siteLine(site: SiteReport): string[] {
  const perMinute = site.limits.messagesPerMinute === null ? '-' : String(site.limits.messagesPerMinute)
  return [site.label ? `${site.name} (${site.label})` : site.name, String(site.queued), String(site.limits.connections), String(site.limits.messagesPerConnection), perMinute, String(site.ratePerMinute), stateOf(site)]
}

function stateOf(site: SiteReport): string {
  const parts: string[] = []
  if (site.suspension) parts.push(`suspended until ${site.suspension.until}: ${site.suspension.reason}`)
  if (site.throttle) parts.push(`slowed down (x1/${2 ** site.throttle.level}) until ${site.throttle.until}: ${site.throttle.reason}`)
  if (site.warmup) parts.push(`warm-up day ${site.warmup.day}/${site.warmup.days}: ${site.warmup.sentToday} of ${site.warmup.cap} today`)
  return parts.join('; ') || 'ok'
}
