import * as projects from '../../core/projects/projects.service.ts'
import { CliError } from '../args.ts'
import { confirmOrStop, idArg, JSON_FLAG, print, stringFlag, table, YES_FLAG, type Command } from '../command.ts'

export const projectCreateCommand: Command = {
  name: 'project create',
  summary: 'Create a project and print its first secret and public key (shown only once)',
  flags: { name: { description: 'Project name' }, ...JSON_FLAG },
  async run(context) {
    const name = stringFlag(context, 'name')
    const created = await context.withDb((db) => projects.createProject(db, name, Date.now()))
    print(context, created, () => [
      `Created project ${created.id} (${created.name})`,
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
        ? ['No projects yet: mailstead project create --name NAME']
        : table([
            ['ID', 'NAME', 'STATUS', 'RATE LIMIT', 'CREATED'],
            ...list.map((p) => [String(p.id), p.name, p.disabled ? 'disabled' : 'enabled', p.rateLimitPerMinute ? `${p.rateLimitPerMinute}/min` : 'default', p.createdAt]),
          ]),
    )
  },
}

const setDisabled = (disabled: boolean): Command => ({
  name: disabled ? 'project disable' : 'project enable',
  summary: disabled ? 'Disable a project: its keys get 403 until it is enabled again' : 'Enable a disabled project',
  args: 'ID',
  flags: { ...JSON_FLAG, ...(disabled ? YES_FLAG : {}) },
  async run(context) {
    const id = idArg(context.args[0], 'Project ID')
    if (disabled) await confirmOrStop(context, `Disable project ${id}? Its API keys stop working.`)
    const project = await context.withDb((db) => projects.setProjectDisabled(db, id, disabled, Date.now()))
    print(context, project, () => [`Project ${project.id} (${project.name}) is ${disabled ? 'disabled' : 'enabled'}`])
  },
})

export const projectDisableCommand = setDisabled(true)
export const projectEnableCommand = setDisabled(false)

export const projectRateLimitCommand: Command = {
  name: 'project set-rate-limit',
  summary: 'Set a project\'s API requests per minute, or "default" for the server-wide limit',
  args: 'ID PER_MINUTE|default',
  flags: JSON_FLAG,
  async run(context) {
    const id = idArg(context.args[0], 'Project ID')
    const text = context.args[1]
    if (text === undefined) throw new CliError('Give the requests per minute, or "default"')
    const perMinute = text === 'default' ? null : idArg(text, 'PER_MINUTE')
    const project = await context.withDb((db) => projects.setProjectRateLimit(db, id, perMinute, Date.now()))
    print(context, project, () => [
      `Project ${project.id} rate limit: ${perMinute === null ? 'server default' : `${perMinute} requests per minute`}`,
    ])
  },
}

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

export const projectSendRateCommand: Command = {
  name: 'project set-send-rate',
  summary: 'Set a project\'s emails per second, or "default" for the server-wide rate',
  args: 'ID PER_SECOND|default',
  flags: JSON_FLAG,
  async run(context) {
    const id = idArg(context.args[0], 'Project ID')
    const text = context.args[1]
    if (text === undefined) throw new CliError('Give the emails per second, or "default"')
    const perSecond = text === 'default' ? null : idArg(text, 'PER_SECOND')
    const project = await context.withDb((db) => projects.setSendRate(db, id, perSecond, Date.now()))
    print(context, project, () => [`Project ${project.id} send rate: ${perSecond === null ? 'server default' : `${perSecond} emails per second`}`])
  },
}
