import type { CliResult } from './cli.ts'
import { SOURCE_COMMAND } from './child.ts'

/** The environment without any MAILSTEAD_* setting of the machine running the tests. */
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILSTEAD_')))

/**
 * Runs `mailstead ARGS` in a child process, as an operator does: for commands that must run
 * beside a server without sharing its event loop (a backup while requests go on).
 */
export async function mailsteadChild(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  const child = Bun.spawn([...SOURCE_COMMAND, ...args], { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...cleanEnv(), ...env } })
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, out: out.trim(), err: err.trim() }
}
