import { createServer } from 'node:net'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { until } from './until.ts'

const MAIN = join(import.meta.dir, '..', '..', 'src', 'main.ts')

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/** How to run `mailstead`: the source with this Bun, unless a test gives the compiled binary. */
export const SOURCE_COMMAND = [process.execPath, MAIN]

/** `mailstead serve` in a child process, as a user runs it; resolves once /health answers. */
export async function startServer(flags: string[], port: number, command = SOURCE_COMMAND): Promise<Subprocess> {
  const child = Bun.spawn([...command, 'serve', ...flags, '--http-port', String(port)], { stdout: 'ignore', stderr: 'inherit' })
  const healthy = () => fetch(`http://127.0.0.1:${port}/health`).then((answer) => answer.ok, () => false) // refused: not listening yet
  const up = await until(async () => child.exitCode === null && (await healthy()), (yes) => yes || child.exitCode !== null, 30_000, 50)
  if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
  if (up) return child
  child.kill('SIGKILL')
  throw new Error('the server did not answer /health')
}
