import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, type App, type AppOptions } from '../../src/app.ts'
import { loadConfig } from '../../src/config/load.ts'
import { createProject } from '../../src/core/projects/projects.service.ts'
import { DnsUnavailableError, type Resolver } from '../../src/lib/dns.ts'
import { silentLogger } from '../../src/lib/logger.ts'
import { databasePath } from '../../src/settings-of.ts'
import { freshPostgres, onPostgres } from './postgres.ts'
import { seedMigratedSqlite } from './sqlite-template.ts'

/** A resolver for tests that do not look at DNS: every query fails as if nobody answered. */
export const noDns: Resolver = {
  query: async (name) => {
    throw new DnsUnavailableError(`no DNS in this test (${name})`)
  },
}

export interface TestResponse {
  status: number
  headers: Headers
  body: any
}

export interface RequestOptions {
  key?: string
  body?: unknown
  /** Sent as is, instead of JSON-encoding `body`. */
  raw?: string
  headers?: Record<string, string>
}

export interface TestApp {
  app: App
  dataDir: string
  /** The flags that name its database to the CLI: none on SQLite (the data directory says), the URL on PostgreSQL. */
  databaseFlags: string[]
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>
  project(name?: string): Promise<{ id: number; name: string; secretKey: string; publicKey: string }>
  /** Stops the app and builds it again on the same data, as a restart does (nothing started). */
  restart(): Promise<void>
  close(): Promise<void>
}

/**
 * A fresh app on a fresh database in a temporary directory (on PostgreSQL when the suite runs
 * there: `MAILSTEAD_TEST_DATABASE=postgres`); settings may be overridden. Without a `dns-servers`
 * setting, DNS answers nothing. A new SQLite database is a copy of a migrated template
 * (test/helpers/sqlite-template.ts) rather than migrated again for each app.
 */
export async function createTestApp(settings: Record<string, string> = {}, options: AppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailstead-test-'))
  // A test that names a database (another app's, to share it) gets that one, and no fresh one to drop.
  const database = onPostgres && !settings['database-url'] ? await freshPostgres() : undefined
  const url = settings['database-url'] ?? database?.url
  const databaseFlags = url ? ['--database-url', url] : []
  const { config } = loadConfig({
    env: {},
    flags: {
      'data-dir': dataDir,
      ...(database && { 'database-url': database.url }),
      'http-port': '0',
      'mx-port': 'off',
      'relay-port': 'off',
      'relay-tls-port': 'off',
      secret: 'test-secret-test-secret-test-secret',
      'dns-servers': '127.0.0.1:9',
      ...settings,
    },
  })
  // On SQLite the database starts as a copy of a migrated template: start-up finds nothing to apply.
  if (!config.databaseUrl) await seedMigratedSqlite(databasePath(config))
  const resolver = settings['dns-servers'] ? undefined : noDns
  const build = () => createApp(config, { logger: silentLogger, resolver, ...options })
  let app = await build()
  return {
    get app() {
      return app
    },
    dataDir,
    databaseFlags,
    request: (method, path, opts = {}) => send(app, method, path, opts),
    project: (name = 'Test project') => app.writer.run((trx) => createProject(trx, name, Date.now())),
    async restart() {
      await app.stop()
      app = await build()
    },
    async close() {
      await app.stop()
      rmSync(dataDir, { recursive: true, force: true })
      await database?.drop()
    },
  }
}

/** Sees each answer that a test app's request() gets (test/helpers/openapi-answers.ts checks them against the API document). */
export type AnswerObserver = (app: App, method: string, path: string, answer: TestResponse) => Promise<void>
let observer: AnswerObserver | undefined

/** Starts (or, with undefined, stops) showing every answer to `next`. */
export function observeAnswers(next: AnswerObserver | undefined): void {
  observer = next
}

async function send(app: App, method: string, path: string, options: RequestOptions): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key) headers.authorization = `Bearer ${options.key}`
  let body = options.raw
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // Not JSON (an HTML page, say): the test gets the text.
  }
  const answer = { status: response.status, headers: response.headers, body: parsed }
  await observer?.(app, method, path, answer)
  return answer
}
