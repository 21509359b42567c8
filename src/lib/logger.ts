export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export type LogFields = Record<string, unknown>

/**
 * JSON lines. `tag` is a stable uppercase word (QUEUED, DELIVERED, HTTP, ...) that operators grep
 * for; `msg` is for people. Secrets never go into fields.
 */
export interface Logger {
  debug(tag: string, msg: string, fields?: LogFields): void
  info(tag: string, msg: string, fields?: LogFields): void
  warn(tag: string, msg: string, fields?: LogFields): void
  error(tag: string, msg: string, fields?: LogFields): void
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Logger {
  const threshold = LOG_LEVELS.indexOf(level)
  const at = (lvl: LogLevel) => (tag: string, msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(lvl) < threshold) return
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, tag, msg, ...fields }))
  }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

export const silentLogger: Logger = createLogger('error', () => {})
