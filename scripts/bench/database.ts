// Where a benchmark keeps its data, and the options that choose it: `--database-url URL` (a
// PostgreSQL server: the run gets a database of its own on it, dropped at the end) and
// `--processes N` (how many `mailstead serve` share that database).
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { cpuSeconds, log } from './common.ts'

export interface BenchOptions {
  /** A PostgreSQL server to run on (its database is only used to create and drop the run's own); none: SQLite. */
  databaseUrl: string | undefined
  processes: number
}

/** The command line of a benchmark: `--database-url URL`, `--processes N`; anything else is refused. */
export function benchOptions(): BenchOptions {
  const { values } = parseArgs({ options: { 'database-url': { type: 'string' }, processes: { type: 'string', default: '1' } }, strict: true })
  const processes = Number(values.processes)
  if (!Number.isInteger(processes) || processes < 1 || processes > 16) throw new Error(`--processes: a whole number from 1 to 16, not ${values.processes}`)
  const databaseUrl = values['database-url']
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('--database-url: a postgres:// URL')
  return { databaseUrl, processes }
}

export interface BenchDatabase {
  dialect: 'sqlite' | 'postgres'
  /** What `serve` and the CLI are given, beside the data directory, to use it. */
  settings: string[]
  /** Starts counting the CPU of the PostgreSQL backends serving it; `null` on SQLite. */
  meterBackends(): Promise<BackendMeter | null>
  drop(): Promise<void>
}

export interface BackendMeter {
  /** CPU seconds the backends spent since the meter started; `null` when none could be read (PostgreSQL elsewhere). */
  stop(): Promise<number | null>
}

const sqlite: BenchDatabase = { dialect: 'sqlite', settings: [], meterBackends: async () => null, drop: async () => {} }

/** SQLite in the data directory, or a new, empty database on the given PostgreSQL server. */
export async function benchDatabase(serverUrl: string | undefined): Promise<BenchDatabase> {
  if (!serverUrl) return sqlite
  const name = `mailstead_bench_${randomBytes(6).toString('hex')}`
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`))
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  log(`PostgreSQL database ${name} created for this run`)
  return {
    dialect: 'postgres',
    settings: ['--database-url', url.toString()],
    meterBackends: () => meterBackends(serverUrl, name),
    drop: () => onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  }
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/**
 * On SQLite the database's work is in the server's own CPU time; on PostgreSQL much of it moves
 * to the backends, so they are counted too for a fair comparison. Every 200 ms the backends
 * connected to the run's database are listed and their CPU read from /proc (PostgreSQL on this
 * machine). A backend that ends between two readings loses at most 200 ms of its time; one that
 * begins after the start counts from zero, its connection set-up included.
 */
async function meterBackends(serverUrl: string, database: string): Promise<BackendMeter | null> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  const seen = new Map<number, { first: number; last: number }>()
  const read = async (starting: boolean) => {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database])
    for (const { pid } of rows) {
      let cpu: number
      try {
        cpu = cpuSeconds(pid)
      } catch {
        continue // ended since the listing, or PostgreSQL runs on another machine
      }
      const known = seen.get(pid)
      if (known) known.last = cpu
      else seen.set(pid, { first: starting ? cpu : 0, last: cpu })
    }
  }
  await read(true)
  let reading = Promise.resolve()
  const timer = setInterval(() => (reading = reading.then(() => read(false)).catch(() => {})), 200)
  return {
    async stop() {
      clearInterval(timer)
      await reading
      await read(false)
      await client.end()
      if (seen.size === 0) return null
      return [...seen.values()].reduce((sum, { first, last }) => sum + last - first, 0)
    },
  }
}
