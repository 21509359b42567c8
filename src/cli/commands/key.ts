import * as projects from '../../core/projects/projects.service.ts'
import type { KeyType } from '../../core/projects/keys.ts'
import { CliError } from '../cli-error.ts'
import { confirmOrStop, idArg, JSON_FLAG, print, stringFlag, table, YES_FLAG, type Command } from '../command.ts'

const projectFlag = { project: { description: 'Project ID', value: 'id', required: true } }

export const keyCreateCommand: Command = {
  name: 'key create',
  summary: 'Create an API key for a project (secret or public); the key is shown only once',
  flags: { ...projectFlag, type: { description: 'secret or public', value: 'type', required: true }, ...JSON_FLAG },
  async run(context) {
    const projectId = idArg(stringFlag(context, 'project'), '--project')
    const type = stringFlag(context, 'type')
    if (type !== 'secret' && type !== 'public') throw new CliError('--type must be secret or public')
    const key = await context.withDb((db) => projects.createKey(db, projectId, type as KeyType, Date.now()))
    print(context, key, () => [`Created ${key.type} key ${key.id} for project ${projectId}: ${key.key}`, 'It is shown only this once.'])
  },
}

export const keyListCommand: Command = {
  name: 'key list',
  summary: "List a project's keys (never whole: only their first characters)",
  flags: { ...projectFlag, ...JSON_FLAG },
  async run(context) {
    const projectId = idArg(stringFlag(context, 'project'), '--project')
    const keys = await context.withDb((db) => projects.listKeys(db, projectId))
    print(context, keys, () =>
      table([
        ['ID', 'TYPE', 'KEY', 'CREATED', 'REVOKED'],
        ...keys.map((k) => [String(k.id), k.type, k.key, k.createdAt, k.revokedAt ?? '-']),
      ]),
    )
  },
}

export const keyRevokeCommand: Command = {
  name: 'key revoke',
  summary: 'Revoke an API key: requests with it get 401 from then on',
  args: 'KEY_ID',
  flags: { ...JSON_FLAG, ...YES_FLAG },
  async run(context) {
    const id = idArg(context.args[0], 'KEY_ID')
    await confirmOrStop(context, `Revoke key ${id}? Applications using it stop working.`)
    const key = await context.withDb((db) => projects.revokeKey(db, id, Date.now()))
    print(context, key, () => [`Key ${key.id} (${key.key}) revoked at ${key.revokedAt}`])
  },
}
