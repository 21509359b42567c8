// @database
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MIGRATIONS, POSTGRES_MIGRATIONS } from '../../migrations/index.ts'
import { createChildWorld, type ChildWorld } from '../helpers/child-world.ts'
import { freshPostgres, onPostgres, type TestDatabase } from '../helpers/postgres.ts'
import { parseMime } from '../helpers/sending.ts'
import { waitFor } from '../helpers/until.ts'

const ROOT = join(import.meta.dir, '..', '..')
let dir: string
let binary: string
let w: ChildWorld | undefined
let database: TestDatabase | undefined

/** The binary `npm run build` makes, built here into a directory with nothing beside it. */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailstead-binary-'))
  binary = join(dir, 'mailstead')
  const build = Bun.spawnSync([process.execPath, join(ROOT, 'scripts', 'build.ts'), '--outfile', binary], { cwd: ROOT })
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`)
})

afterAll(async () => {
  await w?.close()
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
})

const run = (...args: string[]) => Bun.spawnSync([binary, ...args], { cwd: dir, env: { PATH: '/usr/bin:/bin' } })

test('the compiled binary is one executable that answers --help', () => {
  expect(statSync(binary).mode & 0o111).toBeTruthy()
  const help = run('--help')
  expect(help.exitCode).toBe(0)
  expect(help.stdout.toString()).toContain('serve')
})

test('the compiled binary runs its migrations with no node_modules beside it', async () => {
  // On PostgreSQL, into an empty database: its driver is in the binary too.
  database = onPostgres ? await freshPostgres({ empty: true }) : undefined
  const migrated = run('migrate', '--data-dir', join(dir, 'data'), ...(database ? ['--database-url', database.url] : []))
  expect(migrated.exitCode).toBe(0)
  expect(migrated.stdout.toString() + migrated.stderr.toString()).toContain((onPostgres ? POSTGRES_MIGRATIONS : MIGRATIONS)[0]!.name)
})

test('the compiled binary serves /health and sends a DKIM-signed email to an MX', async () => {
  w = await createChildWorld('binary-test-secret-binary-test-secret-0', {}, [binary])
  await w.start()
  const health = (await w.api('GET', '/health')).body
  expect(health.status).toBe('ok')
  const check = run('health', '--http-port', String(w.port))
  expect(check.exitCode).toBe(0)
  expect(run('health', '--http-port', '9').exitCode).toBe(1)
  await w.verifiedDomain()
  const sent = await w.api('POST', '/api/v1/emails', { from: 'app@sender.example.com', to: 'someone@example.net', subject: 'From the binary', html: '<p>Hi</p>' })
  expect(sent.status).toBe(200)
  await waitFor(() => w!.mx.received.length > 0, 'the binary to deliver the message')
  const message = parseMime(w.mx.received[0]!.raw.toString('latin1'))
  expect(message.headers.subject).toBe('From the binary')
  expect(message.headers['dkim-signature']).toContain('d=sender.example.com')
})

test('the compiled binary carries the web console: the app at /console/ and the assets it names', async () => {
  const base = `http://127.0.0.1:${w!.port}`
  const root = await fetch(`${base}/`, { headers: { accept: 'text/html' }, redirect: 'manual' })
  expect(root.status).toBe(302)
  expect(root.headers.get('location')).toBe('/console/')
  const index = await fetch(`${base}/console/emails`)
  expect(index.status).toBe(200)
  expect(index.headers.get('content-security-policy')).toContain("script-src 'self'")
  const html = await index.text()
  const script = /<script[^>]+src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1]
  expect(script).toBeTruthy()
  const asset = await fetch(`${base}${script}`)
  expect(asset.status).toBe(200)
  expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
  expect(asset.headers.get('cache-control')).toContain('immutable')
  expect((await asset.text()).length).toBeGreaterThan(1000)
})

test('the compiled binary carries the documentation: /docs and its pages, with no checkout beside it', async () => {
  const base = `http://127.0.0.1:${w!.port}`
  const readme = await fetch(`${base}/docs`)
  expect(readme.status).toBe(200)
  expect(await readme.text()).toContain('<h1 id="mailstead">Mailstead</h1>')
  const page = await fetch(`${base}/docs/architecture`)
  expect(await page.text()).toContain('<h2 id="the-claim-protocol">')
  expect(await (await fetch(`${base}/docs/search?q=SKIP%20LOCKED`)).text()).toContain('<mark>SKIP LOCKED</mark>')
})
