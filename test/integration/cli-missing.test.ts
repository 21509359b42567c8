// @database-incidental: the CLI's parsing and messages; the services it calls are tested on both databases elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { COMMANDS } from '../../src/cli/index.ts'
import type { Command } from '../../src/cli/command.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'

const SECRET = 'cli-missing-secret-cli-missing-secret-01'
let t: TestApp
let data: string[]

beforeAll(async () => {
  t = await createTestApp()
  data = ['--data-dir', t.dataDir, ...t.databaseFlags, '--secret', SECRET]
  // One real project, so that "missing" is project 9, not an empty database.
  expect((await cli(['project', 'create', '--name', 'Real', ...data])).code).toBe(0)
})

afterAll(() => t.close())

/** Values for the positional arguments: each names something that does not exist. */
const ARGS: Record<string, string> = {
  NAME: 'missing.example.com',
  KEY_ID: '9',
  ID: '9',
  '[ID]': '9',
  'N|default': '10',
  'ADDRESS|none': 'none',
  EMAIL: 'nobody@example.com',
}

/** Values for required flags other than --project. */
const FLAGS: Record<string, string> = {
  type: 'secret',
  name: 'Another',
  from: 'ada@missing.example.com',
  to: 'bob@example.net',
  subject: 'Hello',
  url: 'https://hooks.example.com/mailstead',
  events: 'email.delivered',
  text: 'Hello',
}

/** The command line that asks `command` about project 9, domain missing.example.com or key 9. */
function missingArgv(command: Command): string[] | undefined {
  const args = (command.args ?? '').split(' ').filter(Boolean)
  if (args.some((arg) => ARGS[arg] === undefined)) return undefined
  const flags = Object.entries(command.flags ?? {}).flatMap(([name, spec]) => {
    if (name === 'project') return ['--project', '9']
    if (name === 'yes') return ['--yes']
    return FLAGS[name] !== undefined && (spec.required || name === 'text') ? [`--${name}`, FLAGS[name]!] : []
  })
  // Accounts are named by email, not by project, domain or key: they have tests of their own.
  const takesSomething = flags.includes('--project') || args.some((arg) => ['NAME', 'ID', '[ID]', 'KEY_ID'].includes(arg))
  return takesSomething ? [...command.name.split(' '), ...args.map((arg) => ARGS[arg]!), ...flags] : undefined
}

/** The commands that name a project, domain, key or other row, and what they were asked about. */
const WALK = COMMANDS.flatMap((command) => {
  const argv = missingArgv(command)
  return argv ? [[command.name, argv] as const] : []
})

describe('every CLI error is one line naming what was wrong', () => {
  test('the walk covers the commands that name a project, a domain and a key', () => {
    const walked = WALK.map(([name]) => name)
    for (const name of ['domain add', 'domain records', 'key create', 'key list', 'key revoke', 'send', 'webhook add', 'suppression add']) expect(walked).toContain(name)
  })

  test.each(WALK)('%s with a project, domain or key that does not exist', async (_name, argv) => {
    const { code, out, err } = await cli([...argv, ...data])
    expect({ failed: code !== 0, out, lines: err.split('\n').length }).toEqual({ failed: true, out: '', lines: 1 })
    expect(err).toStartWith('error: ')
    expect(err).not.toContain('constraint')
    expect(err).toMatch(argv.includes('--project') ? /^error: Project 9 not found/ : /\b9\b|missing\.example\.com/)
  })

  // In a project that exists, what is missing is the thing the argument names.
  const IN_PROJECT = WALK.filter(([name, argv]) => argv.includes('--project') && ['domain', 'webhook remove', 'suppression remove', 'key revoke'].some((word) => name.startsWith(word)) && name !== 'domain list' && name !== 'domain add')
  test.each(IN_PROJECT)('%s in project 1, naming a row that does not exist', async (_name, argv) => {
    const inProject = argv.map((arg, i) => (argv[i - 1] === '--project' ? '1' : arg))
    const { code, err } = await cli([...inProject, ...data])
    expect({ failed: code !== 0, lines: err.split('\n').length }).toEqual({ failed: true, lines: 1 })
    expect(err).toMatch(/^error: .*(\b9\b|missing\.example\.com|nobody@example\.com)/)
  })
})

