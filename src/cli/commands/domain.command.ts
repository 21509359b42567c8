import { hostnameProblem } from '../../config/hostname.ts'
import { domainSettingsOf } from '../../settings-of.ts'
import type { Config } from '../../config/config-schema.ts'
import { checkDomainName } from '../../core/domains/domain-name.ts'
import { recordLabel, toDomain } from '../../core/domains/domain.ts'
import { findDomainsByName, listDomains, type DomainRow } from '../../core/domains/index.ts'
import * as domains from '../../core/domains/domains.service.ts'
import { expectedRecords } from '../../core/domains/records.ts'
import { zoneFileFor } from '../../core/domains/zone.ts'
import type { Db } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { createDomainChecker } from '../../workers/domain-checker.ts'
import { createResolver } from '../../dns/resolver.ts'
import { systemClock } from '../../lib/clock.ts'
import { createRegistry } from '../../lib/metrics.ts'
import { CliError } from '../cli-error.ts'
import { commandLogger, confirmOrStop, idArg, JSON_FLAG, print, stringFlag, table, whereLooked, YES_FLAG, type Command, type Context } from '../command.ts'
import { processClaimant } from '../../cluster/join-cluster.ts'

const projectFlag = { project: { description: 'Project ID (needed when several projects have the domain)', value: 'id' } }

/** The one domain NAME names, in --project when given. */
async function findByName(context: Context, db: Db): Promise<DomainRow> {
  const text = context.args[0]
  if (!text) throw new CliError('Give the domain name')
  const name = checkDomainName(text)
  const project = typeof context.flags.project === 'string' ? idArg(context.flags.project, '--project') : undefined
  const found = (await findDomainsByName(db, name)).filter((d) => project === undefined || d.project_id === project)
  if (found.length === 0) throw new CliError(`No domain ${name}${project ? ` in project ${project}` : ''}`)
  if (found.length > 1) throw new CliError(`${name} is in projects ${found.map((d) => d.project_id).join(', ')}: add --project`)
  return found[0]!
}

export const domainAddCommand: Command = {
  name: 'domain add',
  summary: 'Add a sending domain to a project and print the DNS records to publish',
  args: 'NAME',
  flags: { project: { description: 'Project ID', value: 'id', required: true }, region: { description: 'Sending region (default us-east-1)', value: 'region' }, ...JSON_FLAG },
  async run(context) {
    const projectId = idArg(stringFlag(context, 'project'), '--project')
    const region = typeof context.flags.region === 'string' ? context.flags.region : 'us-east-1'
    await context.withDb(async (db, { config }) => {
      const settings = domainSettingsOf(config)
      const draft = await domains.draftDomain({ name: context.args[0] ?? '', region }, settings)
      const row = await writeTransaction(db, (trx) => domains.addDomain(trx, projectId, draft, settings, Date.now()))
      const hostname = hostnameProblem(config.hostname)
      if (hostname) context.io.err(`warning: ${hostname}`)
      print(context, toDomain(row, config.hostname), () => [
        `Added ${row.name} to project ${projectId} (id ${row.id}). Publish these records:`,
        ...zoneFileFor(expectedRecords(row, config.hostname), config.hostname),
      ])
    })
  },
}

export const domainListCommand: Command = {
  name: 'domain list',
  summary: 'List sending domains and their status',
  flags: { project: { description: 'Only this project', value: 'id' }, ...JSON_FLAG },
  async run(context) {
    const project = typeof context.flags.project === 'string' ? idArg(context.flags.project, '--project') : undefined
    await context.withDb(async (db, { config }) => {
      const rows = await listDomains(db, project)
      print(context, rows.map((row) => toDomain(row, config.hostname)), () =>
        rows.length === 0
          ? [`No domains yet ${project ? `in project ${project}` : whereLooked(context.loadConfig())}: mailstead domain add NAME --project ID`]
          : table([
              ['ID', 'PROJECT', 'NAME', 'STATUS', 'REGION', 'LAST CHECKED'],
              ...rows.map((d) => [String(d.id), String(d.project_id), d.name, d.status, d.region, d.last_checked_at ? new Date(d.last_checked_at).toISOString() : '-']),
            ]),
      )
    })
  },
}

export const domainRecordsCommand: Command = {
  name: 'domain records',
  summary: "Print a domain's DNS records as zone-file lines, ready to paste",
  args: 'NAME',
  flags: { ...projectFlag, ...JSON_FLAG },
  async run(context) {
    await context.withDb(async (db, { config }) => {
      const records = expectedRecords(await findByName(context, db), config.hostname)
      print(context, records.map(({ kind, type, name, value, priority, required }) => ({ kind, type, name, value, priority: priority ?? null, required })), () => zoneFileFor(records, config.hostname))
    })
  },
}

export const domainVerifyCommand: Command = {
  name: 'domain verify',
  summary: "Check a domain's DNS now and print each record: expected, found, verdict",
  args: 'NAME',
  flags: { ...projectFlag, ...JSON_FLAG },
  async run(context) {
    await context.withDb(async (db, { config }) => {
      const domain = await findByName(context, db)
      const result = await checkerFor(db, config, context).check(domain.id)
      if (!result) throw new CliError(`A check of ${domain.name} is already running; try again in a moment`)
      const records = expectedRecords(result.domain, config.hostname)
      print(context, toDomain(result.domain, config.hostname), () => [
        ...records.flatMap((record) => {
          const verdict = result.verdicts.get(record.kind)!
          return [
            `${recordLabel(record.kind)} ${record.type} ${record.name}${record.required ? '' : ' (recommended)'}`,
            `  expected: ${record.type === 'MX' ? `${record.priority} ${record.value}` : record.value}`,
            `  found:    ${verdict.found ?? 'nothing'}`,
            `  verdict:  ${verdict.result}${verdict.result === 'ok' ? '' : ` (${verdict.problem})`}`,
          ]
        }),
        `${result.domain.name}: ${result.domain.status}`,
      ])
    })
  },
}

export const domainRemoveCommand: Command = {
  name: 'domain remove',
  summary: 'Remove a sending domain (its mail can no longer be sent)',
  args: 'NAME',
  flags: { ...projectFlag, ...YES_FLAG, ...JSON_FLAG },
  async run(context) {
    await context.withDb(async (db) => {
      const domain = await findByName(context, db)
      await confirmOrStop(context, `Remove ${domain.name} from project ${domain.project_id}?`)
      await writeTransaction(db, (trx) => domains.removeDomain(trx, domain.project_id, domain.id))
      print(context, { id: domain.id, name: domain.name, projectId: domain.project_id, removed: true }, () => [`Removed ${domain.name} from project ${domain.project_id}`])
    })
  },
}

function checkerFor(db: Db, config: Config, context: Context) {
  return createDomainChecker({
    db,
    write: (work) => writeTransaction(db, work),
    resolver: createResolver(config.dnsServers, config.dnsTimeoutMs),
    clock: systemClock,
    logger: commandLogger(context),
    settings: domainSettingsOf(config),
    // One check, then the process ends: nobody scrapes these.
    metrics: createRegistry(),
    claimant: processClaimant(db, (work) => writeTransaction(db, work), config.leaseSeconds),
  })
}
