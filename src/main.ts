import { createInterface } from 'node:readline/promises'
import type { Io } from './cli/command.ts'
import { sizeHeapForServe } from './heap.ts'

// Before the program is loaded: `serve` may start again at once with its heap sized (src/heap.ts).
try {
  sizeHeapForServe(process.argv, import.meta.url.includes('/$bunfs/'))
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(2)
}
const { runCli } = await import('./cli/index.ts')

/** The conventional exit code of a process ended by the signal: 128 + its number. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const

let signals = 0
const stopSignal = new Promise<string>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (signals++ === 0) return resolve(signal)
      // A second signal while stopping: whoever sent it will not wait. Nothing is lost: what was
      // in flight is taken over once its claims' leases run out, as after a crash.
      process.stderr.write(`${signal} received again: exiting at once\n`)
      process.exit(SIGNAL_EXIT[signal])
    })
  }
})

const io: Io = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
  env: process.env,
  stopSignal,
  readStdin: () => Bun.stdin.text(),
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
