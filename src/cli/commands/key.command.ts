import * as projects from '../../core/projects/projects.service.ts'
import { KEY_SCOPES, readExpiry, type KeyScope, type KeyType } from '../../core/projects/keys.ts'
import { CliError } from '../cli-error.ts'
import { confirmOrStop, idArg, JSON_FLAG, print, stringFlag, table, YES_FLAG, type Command, type Context } from '../command.ts'

const projectFlag = { project: { description: 'Project ID', value: 'id', required: true } }

const DAY_MS = 86_400_000

/** --expires: a number of days from now (`90d`) or an ISO 8601 date or time; undefined without it. */
function expiryFlag(context: Context, now: number): number | undefined {
  const text = context.flags.expires
  if (text === undefined) return undefined
  const days = typeof text === 'string' ? /^([1-9][0-9]{0,4})d$/.exec(text) : null
  const at = days ? now + Number(days[1]) * DAY_MS : typeof text === 'string' ? readExpiry(text) : undefined
  if (at === undefined) throw new CliError('--expires must be a number of days (90d) or an ISO 8601 date or time (2027-01-31, 2027-01-31T09:00:00Z)')
  return at
}

export const keyCreateCommand: Command = {
  name: 'key create',
  summary: 'Create an API key for a project (secret or public), with a name, a scope and an expiry; the key is shown only once',
  flags: {
    ...projectFlag,
    type: { description: 'secret or public', value: 'type', required: true },
    name: { description: 'What the key is for, as lists show it (default: "Secret key" or "Public key")', value: 'name' },
    scope: { description: 'full (default), sending (send email only, HTTP and the SMTP relay) or read (GET requests only); secret keys only', value: 'scope' },
    expires: { description: 'When it stops working: a number of days (90d) or an ISO 8601 date or time; never without it', value: 'when' },
    ...JSON_FLAG,
  },
  async run(context) {
    const projectId = idArg(stringFlag(context, 'project'), '--project')
    const type = stringFlag(context, 'type')
    if (type !== 'secret' && type !== 'public') throw new CliError('--type must be secret or public')
    const scope = context.flags.scope ?? 'full'
    if (typeof scope !== 'string' || !(KEY_SCOPES as readonly string[]).includes(scope)) throw new CliError(`--scope must be one of ${KEY_SCOPES.join(', ')}`)
    const name = context.flags.name
    if (name === true) throw new CliError('--name needs a value')
    const now = Date.now()
    const options = { name, scope: scope as KeyScope, expiresAt: expiryFlag(context, now) ?? null }
    const key = await context.withDb((db) => projects.createKey(db, projectId, type as KeyType, now, options))
    const until = key.expiresAt ? `, until ${key.expiresAt}` : ''
    print(context, key, () => [`Created ${key.type} key ${key.id} "${key.name}" (${key.scope}${until}) for project ${projectId}: ${key.key}`, 'It is shown only this once.'])
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
        ['ID', 'NAME', 'TYPE', 'SCOPE', 'KEY', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'],
        ...keys.map((k) => [String(k.id), k.name, k.type, k.scope, k.key, k.createdAt, k.expiresAt ?? '-', k.lastUsedAt ?? '-', k.revokedAt ?? '-']),
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
