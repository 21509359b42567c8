export interface ParsedArgs {
  words: string[]
  flags: Record<string, string | true>
}

/** `a b --x 1 --y=2 --z` -> words [a, b], flags {x: '1', y: '2', z: true}. */
export function parseArgs(argv: readonly string[], booleanFlags: ReadonlySet<string>): ParsedArgs {
  const words: string[] = []
  const flags: Record<string, string | true> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      words.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith('--')) {
      words.push(arg)
      continue
    }
    const [name, inline] = splitOnce(arg.slice(2), '=')
    if (inline !== undefined) flags[name] = inline
    else if (booleanFlags.has(name)) flags[name] = true
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) flags[name] = argv[++i]!
    else throw new CliError(`--${name} needs a value`)
  }
  return { words, flags }
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator)
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)]
}

/** A mistake in how a command was called: printed with a hint, exit code 2. */
export class CliError extends Error {
  override name = 'CliError'
}
