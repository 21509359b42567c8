// @database-incidental: the documentation and what it promises; the database only stands behind the examples
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createWorld, type World } from '../helpers/world.ts'

const ROOT = join(import.meta.dir, '..', '..')
let w: World
let app: string

beforeAll(async () => {
  // The relay as a fresh server has it: no MAILSTEAD_TLS_CERT, so the self-signed certificate.
  w = await createWorld({ started: true, settings: { 'relay-port': '0' } })
  // An application's folder beside the server's: its own node_modules, and the server's data/.
  app = mkdtempSync(join(tmpdir(), 'mailstead-app-'))
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'))
  symlinkSync(w.t.dataDir, join(app, 'data'))
})

afterAll(async () => {
  await w.close()
  rmSync(app, { recursive: true, force: true })
})

/** The nodemailer block of docs/features/inbound.md (the relay), exactly as printed there. */
function recipe(): string {
  const page = readFileSync(join(ROOT, 'docs', 'features', 'inbound.md'), 'utf8')
  const block = /```js\n(\/\/ nodemailer, as a legacy app would use it[\s\S]*?)```/.exec(page)
  if (!block) throw new Error('docs/features/inbound.md has no nodemailer recipe')
  return block[1]!
}

test("the inbound page's nodemailer recipe, run as written by Node, sends through the relay with the default certificate", async () => {
  writeFileSync(join(app, 'send.mjs'), recipe())
  const child = Bun.spawn(['node', 'send.mjs'], {
    cwd: app,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH!, SMTP_PORT: String(w.t.app.listeners()!.relay.port), MAILSTEAD_KEY: w.key, FROM: 'app@sender.example.com' },
  })
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
  expect({ code, err }).toEqual({ code: 0, err: '' })
  const id = /^250 2\.0\.0 Queued as (\S+)$/m.exec(out)?.[1]
  expect(id).toBeDefined()
  await w.deliver()
  expect(w.mx.received.map((m) => m.to[0])).toContain('jane@example.net')
}, 30_000)
