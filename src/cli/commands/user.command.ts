import * as accounts from '../../core/accounts/accounts.service.ts'
import { hashPassword, requirePassword } from '../../core/accounts/password.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { CliError } from '../cli-error.ts'
import { confirmOrStop, JSON_FLAG, print, table, whereLooked, YES_FLAG, type Command, type Context } from '../command.ts'

const PASSWORD_STDIN = { 'password-stdin': { description: 'Read the password from standard input (else a one-time link to set it is printed)', boolean: true } }

function emailArg(context: Context): string {
  const email = context.args[0]
  if (email === undefined) throw new CliError('Give the account\'s email')
  return email
}

/** The password on standard input (one trailing newline dropped), hashed; undefined without --password-stdin. */
async function passwordFromStdin(context: Context): Promise<string | undefined> {
  if (!context.flags['password-stdin']) return undefined
  if (!context.io.readStdin) throw new CliError('--password-stdin needs standard input')
  const password = (await context.io.readStdin()).replace(/\r?\n$/, '')
  return hashPassword(requirePassword(password))
}

const linkLines = (link: string) => [`Set its password within 24 hours, once, at: ${link}`]

const INSTANCE_OWNER = { 'instance-owner': { description: 'Make it an instance owner, who sees every project as its owner (the first account always is)', boolean: true } }

export const userCreateCommand: Command = {
  name: 'user create',
  summary: 'Create a console account; without --password-stdin, print a one-time link to set its password',
  args: 'EMAIL',
  flags: { ...PASSWORD_STDIN, ...INSTANCE_OWNER, ...JSON_FLAG },
  async run(context) {
    const email = emailArg(context)
    const hash = await passwordFromStdin(context)
    const instanceOwner = context.flags['instance-owner'] === true
    const made = await context.withDb(async (db, { config }) => {
      const account = await writeTransaction(db, (trx) => accounts.createAccount(trx, email, hash ?? null, Date.now(), { instanceOwner }))
      const row = await accounts.requireAccountByEmail(db, account.email)
      return { account, link: hash ? undefined : accounts.passwordLink(config.publicUrl, accounts.passwordToken(config.secret, row, Date.now())) }
    })
    print(context, { ...made.account, ...(made.link && { passwordLink: made.link }) }, () => [
      `Created account ${made.account.email} (${made.account.id})${made.account.instanceOwner ? ', an instance owner: it sees every project' : ''}`,
      ...(made.link ? linkLines(made.link) : []),
    ])
  },
}

export const userListCommand: Command = {
  name: 'user list',
  summary: 'List console accounts',
  flags: JSON_FLAG,
  async run(context) {
    const list = await context.withDb((db) => accounts.listAccounts(db))
    print(context, list, () =>
      list.length === 0
        ? [`No accounts yet ${whereLooked(context.loadConfig())}: mailstead user create EMAIL`]
        : table([
            ['ID', 'EMAIL', 'STATUS', 'PASSWORD', 'INSTANCE OWNER', 'CREATED'],
            ...list.map((a) => [a.id, a.email, a.disabled ? 'disabled' : 'enabled', a.passwordSet ? 'set' : 'not set', a.instanceOwner ? 'yes' : 'no', a.createdAt]),
          ]),
    )
  },
}

export const userResetPasswordCommand: Command = {
  name: 'user reset-password',
  summary: "Set an account's password from standard input, or print a one-time link to set it; its sessions end",
  args: 'EMAIL',
  flags: { ...PASSWORD_STDIN, ...JSON_FLAG },
  async run(context) {
    const email = emailArg(context)
    const hash = await passwordFromStdin(context)
    const done = await context.withDb(async (db, { config }) => {
      const row = await accounts.requireAccountByEmail(db, email)
      if (hash) return { account: await writeTransaction(db, (trx) => accounts.setPassword(trx, row.id, hash, Date.now())) }
      return { account: accounts.toAccount(row), link: accounts.passwordLink(config.publicUrl, accounts.passwordToken(config.secret, row, Date.now())) }
    })
    print(context, { ...done.account, ...(done.link && { passwordLink: done.link }) }, () =>
      done.link ? linkLines(done.link) : [`Password of ${done.account.email} set; its sessions ended`],
    )
  },
}

const setDisabled = (disabled: boolean): Command => ({
  name: disabled ? 'user disable' : 'user enable',
  summary: disabled ? 'Disable a console account: it cannot sign in and its sessions end at once' : 'Enable a disabled console account',
  args: 'EMAIL',
  flags: { ...JSON_FLAG, ...(disabled ? YES_FLAG : {}) },
  async run(context) {
    const email = emailArg(context)
    if (disabled) await confirmOrStop(context, `Disable the account ${email}? Its sessions end at once.`)
    const account = await context.withDb(async (db) => {
      const row = await accounts.requireAccountByEmail(db, email)
      return writeTransaction(db, (trx) => accounts.setAccountDisabled(trx, row.id, disabled, Date.now()))
    })
    print(context, account, () => [`Account ${account.email} is ${disabled ? 'disabled' : 'enabled'}`])
  },
})

export const userSetInstanceOwnerCommand: Command = {
  name: 'user set-instance-owner',
  summary: 'Make an account an instance owner (it sees every project as its owner) or no more; the server keeps one at least',
  args: 'EMAIL on|off',
  flags: JSON_FLAG,
  async run(context) {
    const email = emailArg(context)
    const text = context.args[1]
    if (text !== 'on' && text !== 'off') throw new CliError('Give "on" or "off"')
    const account = await context.withDb(async (db) => {
      const row = await accounts.requireAccountByEmail(db, email)
      return writeTransaction(db, (trx) => accounts.setInstanceOwner(trx, row.id, text === 'on', Date.now()))
    })
    print(context, account, () => [`Account ${account.email} is ${account.instanceOwner ? 'an instance owner: it sees every project' : 'no instance owner'}`])
  },
}

export const userDisableCommand = setDisabled(true)
export const userEnableCommand = setDisabled(false)
