import { SETTINGS, flagName } from '../config/config-schema.ts'
import type { Command } from './command.ts'

/*
 * Shell completion scripts made from the command table: the words of commands and subcommands,
 * and the flags of each (with the settings' flags, which every command takes). Nothing is asked of
 * the program at completion time: the script holds the table as it was when it was printed.
 */

export const SHELLS = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof SHELLS)[number]

interface Flag {
  name: string
  description: string
  takesValue: boolean
}

/** The table as completion sees it: each command path ('' for the top, 'queue' for a group) and what may follow it. */
interface Tree {
  /** Words that may follow a path, with what each does. */
  words: Map<string, Array<{ word: string; description: string }>>
  /** Flags of a command, by its whole name. */
  flags: Map<string, Flag[]>
  /** Flags every command takes. */
  global: Flag[]
}

export function completionTree(commands: readonly Command[], groups: Readonly<Record<string, string>>): Tree {
  const words = new Map<string, Array<{ word: string; description: string }>>([['', []]])
  const flags = new Map<string, Flag[]>()
  for (const command of commands) {
    const [first, second] = command.name.split(' ') as [string, string | undefined]
    if (second === undefined) words.get('')!.push({ word: first, description: command.summary })
    else {
      if (!words.has(first)) {
        words.get('')!.push({ word: first, description: groups[first] ?? first })
        words.set(first, [])
      }
      words.get(first)!.push({ word: second, description: command.summary })
    }
    flags.set(
      command.name,
      Object.entries(command.flags ?? {}).map(([name, spec]) => ({ name, description: spec.description, takesValue: !spec.boolean })),
    )
  }
  words.get('')!.push({ word: 'help', description: 'Print the help of mailstead, or of a command' })
  const global: Flag[] = [
    { name: 'help', description: 'Print help', takesValue: false },
    { name: 'config', description: 'JSON file of settings', takesValue: true },
    ...SETTINGS.map((s) => ({ name: flagName(s.key), description: s.description, takesValue: true })),
  ]
  return { words, flags, global }
}

export function completionScript(shell: Shell, tree: Tree): string {
  return { bash, zsh, fish }[shell](tree)
}

const valueFlags = (tree: Tree) => [...new Set([...tree.global, ...[...tree.flags.values()].flat()].filter((f) => f.takesValue).map((f) => `--${f.name}`))]

/** Shell words, single-quoted. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

/**
 * The command path of the words typed so far, in shell: words that are flags, and the value
 * after a flag that takes one, are skipped; a group word takes one more word.
 */
function pathFinder(tree: Tree, wordsVar: string, first: string, last: string): string {
  const groups = [...tree.words.keys()].filter(Boolean)
  return [
    `  local cmdpath="" word i skip=0`,
    `  for ((i = ${first}; i < ${last}; i++)); do`,
    `    word="${wordsVar}[i]}"`,
    `    if ((skip)); then skip=0; continue; fi`,
    `    case "$word" in`,
    `      ${valueFlags(tree).join('|')}) skip=1; continue ;;`,
    `      -*) continue ;;`,
    `    esac`,
    `    case "$cmdpath" in`,
    `      "") cmdpath="$word" ;;`,
    `      ${groups.join('|')}) cmdpath="$cmdpath $word" ;;`,
    `    esac`,
    `  done`,
  ].join('\n')
}

function bash(tree: Tree): string {
  const wordCases = [...tree.words].map(([path, words]) => `    ${quoted(path)}) words=${quoted(words.map((w) => w.word).join(' '))} ;;`)
  const flagCases = [...tree.flags].map(([path, flags]) => `    ${quoted(path)}) flags=${quoted(flags.map((f) => `--${f.name}`).join(' '))} ;;`)
  return `# mailstead completion for bash: source it, or put it in /etc/bash_completion.d/mailstead
_mailstead() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words="" flags=""
${pathFinder(tree, '${COMP_WORDS', '1', 'COMP_CWORD')}
  case "$cmdpath" in
${wordCases.join('\n')}
  esac
  case "$cmdpath" in
${flagCases.join('\n')}
  esac
  if [[ "$cur" == -* ]]; then
    words="$flags ${tree.global.map((f) => `--${f.name}`).join(' ')}"
    [[ -z "$cmdpath" ]] && words="$words --version"
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _mailstead mailstead
`
}

/** `word:description` for zsh's _describe, colons in the word escaped. */
const described = (word: string, description: string) => quoted(`${word.replace(/:/g, '\\:')}:${description}`)

function zsh(tree: Tree): string {
  const wordCases = [...tree.words].map(([path, words]) => `    ${quoted(path)}) items=(${words.map((w) => described(w.word, w.description)).join(' ')}) ;;`)
  const flagCases = [...tree.flags].map(([path, flags]) => `    ${quoted(path)}) flags=(${flags.map((f) => described(`--${f.name}`, f.description)).join(' ')}) ;;`)
  return `#compdef mailstead
# mailstead completion for zsh: put it in a directory of $fpath as _mailstead, or source it after compinit
_mailstead() {
  local -a items flags
${pathFinder(tree, '${words', '2', 'CURRENT')}
  case "$cmdpath" in
${wordCases.join('\n')}
  esac
  case "$cmdpath" in
${flagCases.join('\n')}
  esac
  if [[ "$PREFIX" == -* ]]; then
    items=($flags ${tree.global.map((f) => described(`--${f.name}`, f.description)).join(' ')})
    [[ -z "$cmdpath" ]] && items+=('--version:Print the version')
  fi
  if (( $#items )); then _describe 'mailstead' items; else _files; fi
}
if [[ "$funcstack[1]" == _mailstead ]]; then _mailstead "$@"; else compdef _mailstead mailstead; fi
`
}

function fish(tree: Tree): string {
  const groups = [...tree.words.keys()].filter(Boolean)
  const lines = ['# mailstead completion for fish: put it in ~/.config/fish/completions/mailstead.fish']
  const flag = (f: Flag, condition?: string) =>
    `complete -c mailstead${condition ? ` -n ${quoted(condition)}` : ''} -l ${f.name}${f.takesValue ? ' -r' : ''} -d ${quoted(f.description)}`
  for (const { word, description } of tree.words.get('')!) lines.push(`complete -c mailstead -f -n '__fish_use_subcommand' -a ${word} -d ${quoted(description)}`)
  for (const group of groups) {
    const members = tree.words.get(group)!
    const condition = `__fish_seen_subcommand_from ${group}; and not __fish_seen_subcommand_from ${members.map((m) => m.word).join(' ')}`
    for (const { word, description } of members) lines.push(`complete -c mailstead -f -n ${quoted(condition)} -a ${word} -d ${quoted(description)}`)
  }
  for (const [path, flags] of tree.flags) {
    const [first, second] = path.split(' ')
    const condition = `__fish_seen_subcommand_from ${first}${second ? `; and __fish_seen_subcommand_from ${second}` : ''}`
    for (const f of flags) lines.push(flag(f, condition))
  }
  for (const f of tree.global) lines.push(flag(f))
  lines.push(`complete -c mailstead -n '__fish_use_subcommand' -s V -l version -d 'Print the version'`)
  return lines.join('\n') + '\n'
}
