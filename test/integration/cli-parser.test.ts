// @database-incidental: the CLI's parsing and messages; the services it calls are tested on both databases elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import packageJson from '../../package.json' with { type: 'json' }
import { COMMANDS, GROUPS } from '../../src/cli/index.ts'
import { cli } from '../helpers/cli.ts'
import { cliFlags, receivedCount } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let flags: string[]

beforeAll(async () => {
  w = await createWorld()
  flags = cliFlags(w)
})

afterAll(() => w.close())

const projectCount = async () => (await w.t.app.db.selectFrom('projects').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

describe('the parser', () => {
  test.each([['--version'], ['-V']])('%s prints the version of package.json and exits 0', async (flag) => {
    expect(await cli([flag])).toEqual({ code: 0, out: packageJson.version, err: '' })
  })

  test.each([
    [['queu', 'stats'], "unknown command 'queu'", '(Did you mean queue?)'],
    [['queue', 'stat'], "unknown command 'stat'", '(Did you mean stats?)'],
    [['queue', 'stats', '--jsn'], "unknown option '--jsn'", '(Did you mean --json?)'],
    [['project', 'list', '--data-dri', '/tmp'], "unknown option '--data-dri'", '(Did you mean --data-dir?)'],
  ])('a typo in %j is refused with the nearest name, in a few lines, exit code 2', async (argv, error, suggestion) => {
    const result = await cli(argv)
    expect(result.code).toBe(2)
    expect(result.out).toBe('')
    expect(result.err).toContain(`error: ${error}`)
    expect(result.err).toContain(suggestion)
    expect(result.err.split('\n').length).toBeLessThanOrEqual(3)
  })

  test.each([[['-h']], [['--help']], [['help']], [['help', 'queue']], [['help', 'queue', 'stats']], [['queue', 'stats', '--help']], [['queue', '-h']]])(
    '%j prints help and exits 0',
    async (argv) => {
      const result = await cli(argv)
      expect(result.code).toBe(0)
      expect(result.out).toStartWith('Usage: mailstead')
      expect(result.err).toBe('')
    },
  )

  test('help of a command names its arguments and flags; a required flag is marked, with its value', async () => {
    const { out } = await cli(['help', 'send'])
    expect(out).toContain('Usage: mailstead send [options]')
    expect(out).toMatch(/--project <id>\s+Project ID \(required\)/)
    expect(out).toMatch(/--to <address>\s+Recipient \(required\)/)
    expect(out).toMatch(/--text <text>\s+Plain-text body/)
    expect(out).not.toMatch(/--text <text>.*\(required\)/)
    expect((await cli(['help', 'queue', 'cancel'])).out).toContain('Usage: mailstead queue cancel [options] <ID>')
    expect(await cli(['help', 'queu'])).toMatchObject({ code: 2, err: expect.stringContaining('(Did you mean queue?)') })
  })

  test('an unknown flag is named, exit code 2, and nothing is done', async () => {
    const before = await projectCount()
    const result = await cli(['project', 'create', '--name', 'Never', '--colour', 'red', ...flags])
    expect(result).toMatchObject({ code: 2, out: '' })
    expect(result.err).toContain("unknown option '--colour'")
    expect(await projectCount()).toBe(before)
  })

  test('a missing required flag or argument, or one too many, is refused before anything is done', async () => {
    expect(await cli(['webhook', 'add', '--url', 'http://127.0.0.1/hook', ...flags])).toMatchObject({ code: 2, err: expect.stringContaining("required option '--project <id>' not specified") })
    expect(await cli(['project', 'disable', ...flags])).toMatchObject({ code: 2, err: expect.stringContaining("missing required argument 'ID'") })
    expect(await cli(['project', 'list', 'extra', ...flags])).toMatchObject({ code: 2, err: expect.stringContaining('too many arguments') })
  })

  test('every command takes --json, but completion, whose output is a script', () => {
    for (const command of COMMANDS) {
      if (command.name === 'completion') expect(command.flags?.json).toBeUndefined()
      else expect({ command: command.name, json: command.flags?.json?.boolean }).toEqual({ command: command.name, json: true })
    }
  })
})

describe('--json', () => {
  test('a command that prints a line of success prints what it did', async () => {
    const id = String(w.projectId)
    expect(JSON.parse((await cli(['suppression', 'add', 'gone@example.net', '--project', id, '--json', ...flags])).out)).toEqual({ projectId: w.projectId, email: 'gone@example.net', suppressed: true })
    expect(JSON.parse((await cli(['suppression', 'remove', 'gone@example.net', '--project', id, '--json', ...flags])).out)).toEqual({ projectId: w.projectId, email: 'gone@example.net', suppressed: false })
    const records = JSON.parse((await cli(['domain', 'records', 'sender.example.com', '--json', ...flags])).out)
    expect(records).toContainEqual({ kind: 'return-path-mx', type: 'MX', name: expect.stringContaining('sender.example.com'), value: 'mx.mailstead.test', priority: 10, required: true })
    expect(JSON.parse((await cli(['migrate', '--json', ...flags])).out)).toEqual({ dialect: expect.any(String), applied: [], copy: null })
  })

  test('config show --json gives each setting its own type and where it came from; secrets stay masked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailstead-cli-config-'))
    const file = join(dir, 'settings.json')
    writeFileSync(file, JSON.stringify({ retentionDays: 10, metricsToken: 'a-metrics-token-of-some-length' }))
    const result = await cli(['config', 'show', '--json', '--config', file, '--http-port', '4321', '--data-dir', dir, '--secret', 'config-show-secret-config-show-secret'], { env: { MAILSTEAD_LOG_LEVEL: 'warn', MAILSTEAD_DELIVERY_SHAPING: 'false' } })
    expect(result.code).toBe(0)
    const settings = JSON.parse(result.out)
    expect(settings.httpPort).toEqual({ value: 4321, source: 'flag', env: 'MAILSTEAD_HTTP_PORT' })
    expect(settings.logLevel).toEqual({ value: 'warn', source: 'environment', env: 'MAILSTEAD_LOG_LEVEL' })
    expect(settings.deliveryShaping).toMatchObject({ value: false, source: 'environment' })
    expect(settings.retentionDays).toMatchObject({ value: 10, source: 'file' })
    expect(settings.role).toMatchObject({ value: ['http', 'smtp', 'delivery', 'scheduler'], source: 'default' })
    expect(settings.secret).toMatchObject({ value: '********', source: 'flag' })
    expect(settings.metricsToken).toMatchObject({ value: '********', source: 'file' })
    expect(settings.databaseUrl).toMatchObject({ value: null, source: 'default' })
    expect(result.out).not.toContain('config-show-secret')
    expect(result.out).not.toContain('a-metrics-token')
  })
})

describe('mailstead send', () => {
  const sendFlags = (extra: string[], body = ['--text', 'Hello']) => ['send', '--project', String(w.projectId), '--subject', 'From the CLI', ...body, ...extra, ...flags]
  const emailCount = async () => (await w.t.app.db.selectFrom('emails').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n

  test('queues the email through the API’s send path; the server delivers it like any other', async () => {
    const result = await cli(sendFlags(['--from', 'Ada <ada@sender.example.com>', '--to', 'cli@example.net', '--json']))
    expect(result.code).toBe(0)
    const sent = JSON.parse(result.out)
    expect(sent).toEqual({ id: expect.any(String), projectId: w.projectId, from: '"Ada" <ada@sender.example.com>', to: ['cli@example.net'], subject: 'From the CLI', queuedAt: expect.stringMatching(ISO) })
    const deliveries = await w.t.app.db.selectFrom('deliveries').select(['recipient', 'state']).where('email_id', '=', sent.id).execute()
    expect(deliveries).toEqual([{ recipient: 'cli@example.net', state: 'queued' }])
    await w.deliver()
    expect(receivedCount(w, 'cli@example.net')).toBe(1)
    const text = await cli(sendFlags(['--from', 'ada@sender.example.com', '--to', 'again@example.net']))
    expect(text).toMatchObject({ code: 0, out: expect.stringMatching(/^Queued email \S+ for again@example\.net/) })
  })

  test.each([
    ['a sender domain that is not verified', ['--from', 'ada@elsewhere.example', '--to', 'x@example.net'], undefined, 1, 'The sender domain elsewhere.example is not a verified domain of this project'],
    ['a malformed recipient', ['--from', 'ada@sender.example.com', '--to', 'not-an-address'], undefined, 1, 'to[0]'],
    ['no body', ['--from', 'ada@sender.example.com', '--to', 'x@example.net'], [], 2, 'Give the body'],
  ])('%s is refused with the reason, and nothing is queued', async (_, extra, body, code, message) => {
    const before = await emailCount()
    const result = await cli(sendFlags(extra, body))
    expect(result).toMatchObject({ code, err: expect.stringContaining(message) })
    expect(await emailCount()).toBe(before)
  })
})

describe('mailstead webhook', () => {
  const allowPrivate = ['--webhook-allow-private-targets', 'true']

  test('add prints the signing secret once; list shows the webhook without it; remove asks unless --yes', async () => {
    const id = String(w.projectId)
    const added = await cli(['webhook', 'add', '--project', id, '--url', 'http://127.0.0.1:9/hook', '--events', 'email.delivered,email.bounced', ...allowPrivate, ...flags])
    expect(added.code).toBe(0)
    const secret = /signing secret: (\S+)/.exec(added.out)![1]!
    expect(secret.length).toBeGreaterThan(20)
    const webhookId = /Created webhook (\S+)/.exec(added.out)![1]!

    const listed = await cli(['webhook', 'list', '--project', id, '--json', ...flags])
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ id: webhookId, url: 'http://127.0.0.1:9/hook', events: ['email.delivered', 'email.bounced'], enabled: true, createdAt: expect.stringMatching(ISO) })])
    expect(listed.out).not.toContain(secret)
    expect((await cli(['webhook', 'list', '--project', id, ...flags])).out).not.toContain(secret)

    expect(await cli(['webhook', 'remove', webhookId, '--project', id, ...flags])).toMatchObject({ code: 2, err: expect.stringContaining('Not confirmed; nothing changed') })
    expect(JSON.parse((await cli(['webhook', 'list', '--project', id, '--json', ...flags])).out)).toHaveLength(1)
    const removed = await cli(['webhook', 'remove', webhookId, '--project', id, '--yes', '--json', ...flags])
    expect(JSON.parse(removed.out)).toEqual({ id: webhookId, projectId: w.projectId, url: 'http://127.0.0.1:9/hook', removed: true })
    expect((await cli(['webhook', 'list', '--project', id, ...flags])).out).toStartWith('No webhooks yet')
  })

  test('the service’s checks hold: a private address unless allowed, an unknown event type', async () => {
    const id = String(w.projectId)
    expect(await cli(['webhook', 'add', '--project', id, '--url', 'http://127.0.0.1:9/hook', '--events', '*', ...flags])).toMatchObject({ code: 1, err: expect.stringContaining('url') })
    expect(await cli(['webhook', 'add', '--project', id, '--url', 'http://127.0.0.1:9/hook', '--events', 'email.sneezed', ...allowPrivate, ...flags])).toMatchObject({ code: 1, err: expect.stringContaining('email.sneezed') })
    expect(JSON.parse((await cli(['webhook', 'list', '--project', id, '--json', ...flags])).out)).toEqual([])
  })
})

describe('mailstead completion', () => {
  test('bash: a script that names every command, subcommand and flag, which bash reads without error', async () => {
    const result = await cli(['completion', 'bash'])
    expect(result.code).toBe(0)
    for (const command of COMMANDS) for (const word of command.name.split(' ')) expect(result.out).toContain(word)
    for (const group of Object.keys(GROUPS)) expect(result.out).toContain(`'${group}')`)
    expect(result.out).toContain('--all-deferred')
    expect(result.out).toContain('--data-dir')
    const dir = mkdtempSync(join(tmpdir(), 'mailstead-completion-'))
    const script = join(dir, 'mailstead.bash')
    writeFileSync(script, result.out)
    const check = Bun.spawnSync(['bash', '-n', script])
    expect(check.exitCode).toBe(0)
    // What bash offers after "mailstead queue " and after "mailstead --data-dir /x queue list --j".
    const complete = (words: string[]) =>
      Bun.spawnSync(['bash', '-c', `source ${script}; COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _mailstead; echo "\${COMPREPLY[*]}"`]).stdout.toString().trim()
    expect(complete(['mailstead', 'queue', ''])).toBe('stats sites list retry cancel')
    expect(complete(['mailstead', '--data-dir', '/x', 'queue', 'list', '--j'])).toBe('--json')
  })

  test.each([['zsh', '#compdef mailstead'], ['fish', 'complete -c mailstead']])('%s: a script for that shell', async (shell, marker) => {
    const result = await cli(['completion', shell])
    expect(result.code).toBe(0)
    expect(result.out).toContain(marker)
    expect(result.out).toContain('webhook')
  })

  test('an unknown shell is refused', async () => {
    expect(await cli(['completion', 'powershell'])).toMatchObject({ code: 2, err: expect.stringContaining('bash, zsh, fish') })
  })
})
