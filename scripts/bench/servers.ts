// Several `mailstead serve` processes on one database, as a cluster behind a load balancer runs
// them: each on its own HTTP port, the benchmark spreading its requests across them.
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { bun, cpuSeconds, freePort, stop, waitForHealth } from './common.ts'

export interface Servers {
  children: ChildProcess[]
  urls: string[]
  /** Rejects as soon as any of them exits before `stop`. */
  exited: Promise<never>
  /** Their log lines, counted by level. */
  logged: Record<string, number>
  /** Each one's CPU seconds (user and system, all threads) so far. */
  cpuSeconds(): number[]
  stop(): Promise<void>
}

/**
 * Starts `count` servers one after another, each given `argsOf(port)` after the Bun binary
 * (spawned directly, so each child's pid is the server itself), and waits until each answers
 * /health. Their log lines (JSON on stdout) go to stderr with the server's number.
 */
export async function startServers(count: number, argsOf: (port: number) => string[]): Promise<Servers> {
  const children: ChildProcess[] = []
  const urls: string[] = []
  const logged: Record<string, number> = {}
  let stopping = false
  let fail!: (error: Error) => void
  const exited = new Promise<never>((_, reject) => (fail = reject))
  exited.catch(() => {})
  const servers: Servers = {
    children,
    urls,
    exited,
    logged,
    cpuSeconds: () => children.map((child) => cpuSeconds(child.pid!)),
    async stop() {
      stopping = true
      await Promise.all(children.map((child) => stop(child)))
    },
  }
  try {
    for (let n = 1; n <= count; n++) {
      const port = await freePort()
      const child = spawn(bun, argsOf(port), { stdio: ['ignore', 'pipe', 'inherit'] })
      children.push(child)
      createInterface({ input: child.stdout! }).on('line', (line) => {
        process.stderr.write(`server ${n}: ${line}\n`)
        const level = /"level":"(\w+)"/.exec(line)?.[1] ?? 'other'
        logged[level] = (logged[level] ?? 0) + 1
      })
      child.once('exit', (code, signal) => stopping || fail(new Error(`server ${n} exited (${code ?? signal})`)))
      const url = `http://127.0.0.1:${port}`
      await waitForHealth(url, () => child.exitCode !== null || child.signalCode !== null)
      urls.push(url)
    }
  } catch (error) {
    await servers.stop()
    throw error
  }
  return servers
}
