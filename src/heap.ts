// How big JavaScriptCore lets the server's heap grow: decided before anything else is loaded,
// because JavaScriptCore reads its options (BUN_JSC_*) from the environment when the process starts.
import { totalmem } from 'node:os'
import { parseArgs } from 'node:util'
import { flagName, SETTINGS } from './config/config-schema.ts'

/** The JavaScriptCore option: the RAM its garbage collector sizes the heap by. */
export const RAM_OPTION = 'BUN_JSC_forceRAMSize'
/** Mailstead's setting: that RAM in MB, or `os` for the machine's own (Bun's choice). */
export const HEAP_SETTING = 'MAILSTEAD_HEAP_MB'
/** What the server's heap is sized by unless told otherwise. */
export const DEFAULT_HEAP_MB = 512

/**
 * The value BUN_JSC_forceRAMSize should have for `serve`, or undefined to leave the environment
 * as it is: when the option is already set (by hand, or by this same decision before an exec),
 * when MAILSTEAD_HEAP_MB is `os`, or when the machine has less RAM than the default anyway.
 * Throws on a MAILSTEAD_HEAP_MB that is not a number of MB (64 at least) or `os`.
 */
export function heapRamBytes(env: Record<string, string | undefined>, machineBytes = totalmem()): number | undefined {
  if (env[RAM_OPTION] !== undefined) return undefined
  const setting = env[HEAP_SETTING]?.trim()
  if (setting === 'os') return undefined
  const mb = setting === undefined || setting === '' ? DEFAULT_HEAP_MB : Number(setting)
  if (!Number.isInteger(mb) || mb < 64) throw new Error(`${HEAP_SETTING} is a number of MB (64 at least) or os; got "${setting}"`)
  const bytes = mb * 1024 * 1024
  return bytes < machineBytes ? bytes : undefined
}

/**
 * The arguments that run this same command again: a compiled binary takes its own arguments
 * only; from source, Bun's flags (--cpu-prof...) and the script come first.
 */
export function sameCommand(argv: readonly string[], execArgv: readonly string[], compiled: boolean): string[] {
  return compiled ? argv.slice(2) : [...execArgv, ...argv.slice(1)]
}

/**
 * For `serve`: when the heap should be sized otherwise than the environment says, replaces this
 * process (same pid, same arguments) with one that has BUN_JSC_forceRAMSize set. Without it,
 * JavaScriptCore sizes its heap by the machine's RAM, and on a large machine the server keeps
 * hundreds of MB of garbage between collections (688 MB peak RSS for a bench that lives in 60 MB).
 */
export function sizeHeapForServe(argv: readonly string[], compiled: boolean): void {
  if (!isServe(argv.slice(2)) || typeof process.execve !== 'function') return
  // A setting that cannot be used throws: main.ts says why and exits.
  const bytes = heapRamBytes(process.env)
  if (bytes === undefined) return
  process.execve(process.execPath, [process.execPath, ...sameCommand(argv, process.execArgv, compiled)], { ...process.env, [RAM_OPTION]: String(bytes) })
}

/** Whether a command line runs `serve` (anything it cannot read is left to the CLI to refuse). */
function isServe(args: readonly string[]): boolean {
  // Only the flags that take a value matter here: they must not be taken for the command's name.
  const settings = [...SETTINGS.map((s) => flagName(s.key)), 'config'].map((name) => [name, { type: 'string' as const }])
  const options = { ...Object.fromEntries(settings), help: { type: 'boolean' as const, short: 'h' }, version: { type: 'boolean' as const, short: 'V' } }
  try {
    const { positionals, values } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true })
    return positionals[0] === 'serve' && !values.help && !values.version
  } catch {
    return false
  }
}
