import { resolve } from 'node:path'
import type { LoadedConfig } from '../config/load.ts'
import type { Db } from '../db/schema.ts'
import { createLogger, type Logger } from '../lib/logger.ts'
import { CliError } from './cli-error.ts'

export interface Io {
  out(line: string): void
  err(line: string): void
  /** Asks a yes/no question; false when nobody can answer. */
  confirm(question: string): Promise<boolean>
  env: Record<string, string | undefined>
  /** Resolves when the process is asked to stop (SIGINT, SIGTERM). */
  stopSignal: Promise<string>
  /** Everything on standard input, for --password-stdin; absent where there is none. */
  readStdin?(): Promise<string>
  /** Replaces the status line of a terminal (a progress bar; '' clears it); absent when stderr is not one. */
  progress?(text: string): void
}

export interface FlagSpec {
  description: string
  boolean?: boolean
  /** The name of its value in help and docs: `--email <address>`; the flag's own name when absent. */
  value?: string
  /** The parser refuses the command line without it, and help says so. */
  required?: boolean
}

export interface Context {
  args: string[]
  flags: Record<string, string | true>
  io: Io
  /** The configuration from defaults, --config, MAILSTEAD_* and setting flags. */
  loadConfig(): LoadedConfig
  /** Opens (and migrates) the database for the length of `work`. */
  withDb<T>(work: (db: Db, loaded: LoadedConfig) => Promise<T>): Promise<T>
}

export interface Command {
  /** Words that select it: `project create`. */
  name: string
  summary: string
  /** Positional arguments, for the parser and help: `ID N|default`; `[ID]` when it may be left out. */
  args?: string
  flags?: Record<string, FlagSpec>
  run(context: Context): Promise<void>
}

export const JSON_FLAG: Record<string, FlagSpec> = { json: { description: 'Print JSON (camelCase keys, ISO 8601 times)', boolean: true } }
export const YES_FLAG: Record<string, FlagSpec> = { yes: { description: 'Do not ask for confirmation', boolean: true } }

export function stringFlag(context: Context, name: string): string {
  const value = context.flags[name]
  if (typeof value !== 'string' || value === '') throw new CliError(`--${name} is required`)
  return value
}

export function idArg(text: string | undefined, what: string): number {
  if (text === undefined || !/^[1-9][0-9]{0,15}$/.test(text)) throw new CliError(`${what} must be a positive whole number`)
  return Number(text)
}

/** Prints a value as JSON with --json, otherwise the lines given. */
export function print(context: Context, value: unknown, lines: () => string[]): void {
  if (context.flags.json) context.io.out(JSON.stringify(value))
  else for (const line of lines()) context.io.out(line)
}

/** Lines of a table whose columns line up. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd())
}

/**
 * Log lines of the parts a command runs (the DNS checker, say), to standard error. A command
 * prints what it did itself, so they are only its errors unless logLevel is set.
 */
export function commandLogger(context: Context): Logger {
  const { config, sources } = context.loadConfig()
  return createLogger(sources.logLevel === 'default' ? 'error' : config.logLevel, context.io.err)
}

export async function confirmOrStop(context: Context, question: string): Promise<void> {
  if (context.flags.yes) return
  if (!(await context.io.confirm(question))) throw new CliError('Not confirmed; nothing changed (add --yes to skip the question)')
}

/**
 * Where a command looked, for a list that found nothing: whoever ran it from another folder, or
 * with another setting, sees that it was not the database they meant.
 */
export function whereLooked({ config }: LoadedConfig): string {
  return config.databaseUrl ? 'in the PostgreSQL database of MAILSTEAD_DATABASE_URL' : `in the data directory ${resolve(config.dataDir)}`
}
