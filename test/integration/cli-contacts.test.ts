// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../../src/cli/index.ts'
import type { Io } from '../../src/cli/command.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cli } from '../helpers/cli.ts'

let t: TestApp
let data: string[]

beforeAll(async () => {
  t = await createTestApp()
  data = ['--data-dir', t.dataDir, ...t.databaseFlags, '--secret', 'cli-test-secret-cli-test-secret-0123']
})

afterAll(() => t.close())

const csvFile = (name: string, text: string) => {
  const path = join(t.dataDir, name)
  writeFileSync(path, text)
  return path
}

const contactsOf = async (key: string) => {
  const list = await t.request('GET', '/contacts?limit=100', { key })
  return Object.fromEntries(list.body.contacts.map((c: any) => [c.email, { subscribed: c.subscribed, data: c.data }]))
}

describe('mailstead contacts import', () => {
  test('imports a file and prints a summary with the first failed lines; the running server sees the contacts', async () => {
    const project = await t.project('CLI import')
    const file = csvFile('people.csv', 'email,plan,seats\nann@example.com,pro,3\nbroken,free,1\nbob@example.com,,\n')
    const result = await cli(['contacts', 'import', file, '--project', String(project.id), ...data])
    expect(result).toMatchObject({ code: 0, out: 'Imported 3 rows: 2 created, 0 updated, 1 failed\n  line 3: "broken": The address is not valid: it must look like name@domain.' })
    expect(await contactsOf(project.secretKey)).toEqual({
      'ann@example.com': { subscribed: true, data: { plan: 'pro', seats: 3 } },
      'bob@example.com': { subscribed: true, data: {} },
    })
  })

  test('--json prints the counts and the failed rows', async () => {
    const project = await t.project('CLI json')
    const file = csvFile('json.csv', 'email\nx@example.com\nx@example.com\n,\n')
    const result = await cli(['contacts', 'import', file, '--project', String(project.id), '--json', ...data])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.out)).toEqual({
      complete: true,
      processedRows: 3,
      createdCount: 1,
      updatedCount: 1,
      failedCount: 1,
      errors: [{ line: 4, message: 'the row has 2 fields where the header has 1' }],
    })
  })

  test('a progress bar goes to a terminal, cleared at the end', async () => {
    const project = await t.project('CLI progress')
    const file = csvFile('progress.csv', `email\n${Array.from({ length: 12_000 }, (_, i) => `p${i}@example.com`).join('\n')}\n`)
    const bars: string[] = []
    const out: string[] = []
    const io: Io = { out: (line) => out.push(line), err: () => {}, env: {}, confirm: async () => false, stopSignal: new Promise(() => {}), progress: (text) => bars.push(text) }
    expect(await runCli(['contacts', 'import', file, '--project', String(project.id), ...data], io)).toBe(0)
    expect(bars.slice(0, -1)).toEqual(['[########------------]  40%  5,000 rows', '[################----]  82%  10,000 rows', '[####################] 100%  12,000 rows'])
    expect(bars.at(-1)).toBe('')
    expect(out).toEqual(['Imported 12,000 rows: 12,000 created, 0 updated, 0 failed'])
  })

  test.each([
    ['no email column', 'name\nAda\n', 1, 'the CSV has no email column'],
    ['an empty file', '', 1, 'the file is empty'],
  ])('%s is refused and nothing is imported', async (_name, text, code, message) => {
    const project = await t.project('CLI refused')
    const result = await cli(['contacts', 'import', csvFile('refused.csv', text), '--project', String(project.id), ...data])
    expect(result.code).toBe(code)
    expect(result.err).toContain(message)
    expect(await contactsOf(project.secretKey)).toEqual({})
  })

  test.each([
    [['contacts', 'import', '/no/such/file.csv', '--project', '1'], 2, 'There is no file /no/such/file.csv'],
    [['contacts', 'import', '--project', '1'], 2, "missing required argument 'FILE'"],
    [['contacts', 'import', 'x.csv'], 2, "required option '--project <id>' not specified"],
  ])('%j fails with exit code %d', async (argv, code, message) => {
    const result = await cli([...argv, ...data])
    expect(result.code).toBe(code)
    expect(result.err).toContain(message)
  })

  test('an unknown project is an error', async () => {
    const result = await cli(['contacts', 'import', csvFile('unknown.csv', 'email\na@example.com\n'), '--project', '9999', ...data])
    expect(result).toMatchObject({ code: 1, err: 'error: Project 9999 not found' })
  })
})

describe('mailstead contacts export', () => {
  const awkward = [
    { email: 'Ada@Example.com', subscribed: false, data: { name: 'Lovelace, Ada', age: 36, ratio: 0.5, vip: true, zip: '02139', code: '34', flag: 'true', empty: '' } },
    { email: 'bob@example.com', data: { note: 'line one\nline two "quoted"', tags: ['a', 'b'], address: { city: 'Zürich', geo: [47.3, 8.5] }, email: 'work@example.com' } },
    { email: 'cy@example.com', data: { json: '{"not":"parsed"}', quoted: '"hi"', big: 1e21, neg: -2 } },
    { email: 'dee@example.com' },
  ]

  test('writes every contact with a column per data key, and importing the file gives the same contacts', async () => {
    const source = await t.project('Export source')
    for (const contact of awkward) await t.request('POST', '/contacts', { key: source.secretKey, body: contact })
    const file = join(t.dataDir, 'export.csv')
    const exported = await cli(['contacts', 'export', '--project', String(source.id), '--output', file, ...data])
    expect(exported).toMatchObject({ code: 0, out: `Exported 4 contacts to ${file}` })
    const [header] = readFileSync(file, 'utf8').split('\n')
    expect(header).toBe('email,subscribed,createdAt,updatedAt,address,age,big,code,data.email,empty,flag,json,name,neg,note,quoted,ratio,tags,vip,zip')
    expect(existsSync(`${file}.partial`)).toBe(false)

    const target = await t.project('Export target')
    const imported = await cli(['contacts', 'import', file, '--project', String(target.id), ...data])
    expect(imported.out).toBe('Imported 4 rows: 4 created, 0 updated, 0 failed')
    expect(await contactsOf(target.secretKey)).toEqual(await contactsOf(source.secretKey))

    const again = await cli(['contacts', 'import', file, '--project', String(source.id), ...data])
    expect(again.out).toBe('Imported 4 rows: 0 created, 4 updated, 0 failed')
  })

  test('without --output the CSV goes to standard output and the count to standard error', async () => {
    const project = await t.project('Export stdout')
    await t.request('POST', '/contacts', { key: project.secretKey, body: { email: 'one@example.com', data: { plan: 'pro' } } })
    const result = await cli(['contacts', 'export', '--project', String(project.id), ...data])
    expect(result.code).toBe(0)
    expect(result.out).toMatch(/^email,subscribed,createdAt,updatedAt,plan\none@example\.com,true,\d{4}-.+Z,\d{4}-.+Z,pro$/)
    expect(result.err).toBe('Exported 1 contacts')
  })

  test('an empty project exports only the header; --json needs --output', async () => {
    const project = await t.project('Export empty')
    expect((await cli(['contacts', 'export', '--project', String(project.id), ...data])).out).toBe('email,subscribed,createdAt,updatedAt')
    expect((await cli(['contacts', 'export', '--project', String(project.id), '--json', ...data])).code).toBe(2)
  })
})
