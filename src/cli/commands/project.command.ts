import * as projects from '../../core/projects/projects.service.ts'
import { setProjectSandbox } from '../../core/emails/sandbox-switch.ts'
import type { Db } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { CliError } from '../cli-error.ts'
import { confirmOrStop, idArg, JSON_FLAG, print, stringFlag, table, whereLooked, YES_FLAG, type Command } from '../command.ts'

export const projectCreateCommand: Command = {
  name: 'project create',
  summary: 'Create a project and print its first secret and public key (shown only once)',
  flags: {
    name: { description: 'Project name', value: 'name', required: true },
    sandbox: { description: 'A sandbox project: sends from any address, its mail is simulated and never leaves the server', boolean: true },
    ...JSON_FLAG,
  },
  async run(context) {
    const name = stringFlag(context, 'name')
    const sandbox = context.flags.sandbox === true
    const created = await context.withDb((db) => projects.createProject(db, name, Date.now(), { sandbox }))
    print(context, created, () => [
      `Created ${sandbox ? 'sandbox ' : ''}project ${created.id} (${created.name})`,
      `  secret key: ${created.secretKey}`,
      `  public key: ${created.publicKey}`,
      'The keys are shown only this once: keep the secret key on your servers.',
    ])
  },
}

export const projectListCommand: Command = {
  name: 'project list',
  summary: 'List projects',
  flags: JSON_FLAG,
  async run(context) {
    const list = await context.withDb((db) => projects.listProjects(db))
    print(context, list, () =>
      list.length === 0
        ? [`No projects yet ${whereLooked(context.loadConfig())}: mailstead project create --name NAME`]
        : table([
            ['ID', 'NAME', 'STATUS', 'RATE LIMIT', 'CREATED'],
            ...list.map((p) => [String(p.id), p.name, (p.disabled ? 'disabled' : 'enabled') + (p.sandbox ? ', sandbox' : ''), p.rateLimitPerMinute ? `${p.rateLimitPerMinute}/min` : 'default', p.createdAt]),
          ]),
    )
  },
}

const setDisabled = (disabled: boolean): Command => ({
  name: disabled ? 'project disable' : 'project enable',
  summary: disabled ? 'Disable a project: its keys get 403 and its mail is held until it is enabled again' : 'Enable a disabled project: its held mail is sent on',
  args: 'ID',
  flags: { ...JSON_FLAG, ...(disabled ? YES_FLAG : {}) },
  async run(context) {
    const id = idArg(context.args[0], 'Project ID')
    if (disabled) await confirmOrStop(context, `Disable project ${id}? Its API keys stop working.`)
    const project = await context.withDb((db) => writeTransaction(db, (trx) => projects.setProjectDisabled(trx, id, disabled, Date.now())))
    print(context, project, () => [`Project ${project.id} (${project.name}) is ${disabled ? 'disabled' : 'enabled'}`])
  },
})

export const projectDisableCommand = setDisabled(true)
export const projectEnableCommand = setDisabled(false)

/** A per-project number that "default" hands back to the server-wide setting. */
const perProjectNumber = (options: {
  name: string
  summary: string
  /** What the number is, in the line printed: "rate limit". */
  label: string
  unit: string
  set: (db: Db, id: number, value: number | null, now: number) => Promise<{ id: number }>
}): Command => ({
  name: options.name,
  summary: options.summary,
  args: `ID N|default`,
  flags: JSON_FLAG,
  async run(context) {
    const id = idArg(context.args[0], 'Project ID')
    const text = context.args[1]
    if (text === undefined) throw new CliError(`Give the ${options.unit}, or "default"`)
    const value = text === 'default' ? null : idArg(text, 'N')
    const project = await context.withDb((db) => options.set(db, id, value, Date.now()))
    print(context, project, () => [`Project ${project.id} ${options.label}: ${value === null ? 'server default' : `${value} ${options.unit}`}`])
  },
})

export const projectRateLimitCommand = perProjectNumber({
  name: 'project set-rate-limit',
  summary: 'Set a project\'s API requests per minute, or "default" for the server-wide limit',
  label: 'rate limit',
  unit: 'requests per minute',
  set: projects.setProjectRateLimit,
})

export const projectSetSenderCommand: Command = {
  name: 'project set-sender',
  summary: 'Set the From address used by sends that name none ("none" removes it)',
  args: 'ID ADDRESS|none',
  flags: JSON_FLAG,
  async run(context) {
    const id = idArg(context.args[0], 'Project ID')
    const text = context.args[1]
    if (text === undefined) throw new CliError('Give the sender address, or "none"')
    const project = await context.withDb((db) => projects.setDefaultSender(db, id, text === 'none' ? null : text, Date.now()))
    print(context, project, () => [`Project ${project.id} default sender: ${project.defaultSender ?? 'none'}`])
  },
}

export const projectSetSandboxCommand: Command = {
  name: 'project set-sandbox',
  summary: 'Turn a project\'s sandbox on (its mail is simulated, from any address) or off (refused while sandbox mail from unverified domains is in flight)',
  args: 'ID on|off',
  flags: JSON_FLAG,
  async run(context) {
    const id = idArg(context.args[0], 'Project ID')
    const text = context.args[1]
    if (text !== 'on' && text !== 'off') throw new CliError('Give "on" or "off"')
    const project = await context.withDb((db) => writeTransaction(db, (trx) => setProjectSandbox(trx, id, text === 'on', Date.now())))
    print(context, project, () => [`Project ${project.id} (${project.name}) is ${project.sandbox ? 'a sandbox: its mail never leaves the server' : 'sending for real'}`])
  },
}

export const projectSendRateCommand = perProjectNumber({
  name: 'project set-send-rate',
  summary: 'Set a project\'s emails per second, or "default" for the server-wide rate',
  label: 'send rate',
  unit: 'emails per second',
  set: projects.setSendRate,
})
