import { createInterface } from 'node:readline/promises'
import { runCli } from './cli/index.ts'
import type { Io } from './cli/command.ts'

const stopSignal = new Promise<string>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal))
})

const io: Io = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
  env: process.env,
  stopSignal,
  ...(process.stderr.isTTY && { progress: (text: string) => process.stderr.write(`\r${text}\x1b[K`) }),
  async confirm(question) {
    if (!process.stdin.isTTY) return false
    const prompt = createInterface({ input: process.stdin, output: process.stderr })
    const answer = await prompt.question(`${question} [y/N] `)
    prompt.close()
    return /^y(es)?$/i.test(answer.trim())
  },
}

process.exit(await runCli(process.argv.slice(2), io))
