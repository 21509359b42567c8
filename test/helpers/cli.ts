import { runCli } from '../../src/cli/index.ts'
import type { Io } from '../../src/cli/command.ts'

export interface CliResult {
  code: number
  out: string
  err: string
}

/** Runs one command line in-process, capturing its output; questions are answered with `answer`. */
export async function cli(argv: string[], options: { env?: Record<string, string>; answer?: boolean; stdin?: string } = {}): Promise<CliResult> {
  const out: string[] = []
  const err: string[] = []
  const io: Io = {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: options.env ?? {},
    confirm: async () => options.answer ?? false,
    stopSignal: new Promise(() => {}),
    ...(options.stdin !== undefined && { readStdin: async () => options.stdin! }),
  }
  const code = await runCli(argv, io)
  return { code, out: out.join('\n'), err: err.join('\n') }
}
