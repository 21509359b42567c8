/**
 * One block of header-like fields, as in message/delivery-status (RFC 3464 §2.1) and
 * message/feedback-report (RFC 5965 §3.1): names lower-cased, values unfolded and trimmed. When a
 * name repeats, the first value is kept.
 */
export type FieldGroup = ReadonlyMap<string, string>

/**
 * The groups of a field block: `Name: value` lines, continuation lines starting with whitespace,
 * groups separated by blank lines. A fold and the whitespace around it become one space. Lines
 * that are not fields (no name before a colon) are skipped, so a damaged block still gives what it can.
 */
export function parseFieldGroups(text: string): FieldGroup[] {
  const groups: Array<Array<[string, string]>> = []
  let current: Array<[string, string]> | null = null
  for (const line of text.split(/\r?\n|\r/)) {
    if (line.trim() === '') {
      current = null
      continue
    }
    const last = current?.[current.length - 1]
    if (/^[ \t]/.test(line)) {
      if (last) last[1] = `${last[1]} ${line.trim()}`
      continue
    }
    const field = /^([!-9;-~]+)[ \t]*:(.*)$/.exec(line)
    if (!field) continue
    if (!current) groups.push((current = []))
    current.push([field[1]!.toLowerCase(), field[2]!.trim()])
  }
  return groups.map(toGroup)
}

function toGroup(entries: Array<[string, string]>): FieldGroup {
  const group = new Map<string, string>()
  for (const [name, value] of entries) if (!group.has(name)) group.set(name, value.trim())
  return group
}

/**
 * A typed value without its type: `rfc822; user@example.net` -> `user@example.net`,
 * `smtp; 550 5.1.1 ...` -> `550 5.1.1 ...`. A value with no type is kept; empty gives null.
 */
export function untyped(value: string | undefined): string | null {
  if (value === undefined) return null
  const rest = value.replace(/^[A-Za-z0-9][A-Za-z0-9.+_-]*[ \t]*;/, '').trim()
  return rest === '' ? null : rest
}

/** An address field's address: the type and angle brackets taken away; null when nothing is left. */
export function addressOf(value: string | undefined): string | null {
  const rest = untyped(value)
  if (rest === null) return null
  const bare = rest.replace(/^<\s*(.*?)\s*>$/, '$1').trim()
  return bare === '' ? null : bare
}
