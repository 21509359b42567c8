/**
 * MTA-STS (RFC 8461) as text: the `_mta-sts` TXT record, the policy file, and whether an MX host
 * name matches a policy. Pure functions; fetching and caching are in mta-sts.ts.
 */

export type StsMode = 'enforce' | 'testing' | 'none'

export const STS_MODES: readonly StsMode[] = ['enforce', 'testing', 'none']

/** RFC 8461 §3.2: the largest max_age, about one year. */
export const MAX_AGE_LIMIT = 31_557_600

/** RFC 8461 §3.3 suggests senders refuse policies larger than 64 KB. */
export const MAX_POLICY_BYTES = 64 * 1024

/** A policy file as parsed: what the policy says, without the TXT record's id. */
export interface StsPolicyText {
  mode: StsMode
  /** MX host patterns in lower case: `mail.example.com`, or `*.example.com` for one leftmost label. */
  mx: string[]
  /** Seconds the policy may be cached. */
  maxAge: number
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string }

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value })
const bad = <T>(reason: string): Parsed<T> => ({ ok: false, reason })

/** Text from the network, quoted and kept short in a reason. */
const quote = (text: string, max = 80) => JSON.stringify(text.length > max ? `${text.slice(0, max)}...` : text)

// ---- The TXT record (RFC 8461 §3.1) ----

/** `v=STSv1` and then a separator or the end: what marks a TXT record as an MTA-STS one. */
const VERSION_PREFIX = /^v=STSv1(?=[ \t]*;|[ \t]*$)/
/** sts-sep: `;` with optional spaces or tabs around it. */
const SEPARATOR = /^[ \t]*;[ \t]*/
const EXTENSION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/
/** sts-ext-value: printable ASCII but `;`, `=` and space. */
const EXTENSION_VALUE = /^[\x21-\x3a\x3c\x3e-\x7e]+$/
const ID = /^[A-Za-z0-9]{1,32}$/

/**
 * Parses one `_mta-sts` TXT record (its character-strings already joined): `v=STSv1; id=...;`
 * with optional extensions. The id is what tells a new policy from the cached one. Field names
 * and `v=STSv1` are case-sensitive; of two `id` fields the first counts (RFC 8461 §3.2).
 */
export function parseStsRecord(text: string): Parsed<{ id: string }> {
  const version = VERSION_PREFIX.exec(text)
  if (!version) return bad(`${quote(text)} does not start with v=STSv1;`)
  let rest = text.slice(version[0].length)
  let id: string | undefined
  let fields = 0
  while (rest.length > 0) {
    const separator = SEPARATOR.exec(rest)
    if (!separator) return bad(`expected ";" before ${quote(rest)}`)
    rest = rest.slice(separator[0].length)
    if (rest.length === 0) break
    const end = rest.search(/[ \t]*;/)
    const field = end < 0 ? rest : rest.slice(0, end)
    rest = end < 0 ? '' : rest.slice(end)
    const equals = field.indexOf('=')
    if (equals < 0) return bad(`field ${quote(field)} is not name=value`)
    const name = field.slice(0, equals)
    const value = field.slice(equals + 1)
    fields++
    if (name === 'id') {
      if (!ID.test(value)) return bad(`id ${quote(value)} must be 1 to 32 letters and digits`)
      id ??= value
    } else if (!EXTENSION_NAME.test(name) || !EXTENSION_VALUE.test(value)) {
      return bad(`field ${quote(field)} is neither id= nor a well-formed extension`)
    }
  }
  if (fields === 0) return bad('it has no fields after v=STSv1')
  if (id === undefined) return bad('it has no id= field')
  return ok({ id })
}

/**
 * The MTA-STS record among the TXT records at `_mta-sts.<domain>`: records that do not start with
 * `v=STSv1` are left out, and exactly one must remain (RFC 8461 §3.1). Undefined when none does;
 * a failure when several do or the one is malformed (the domain then counts as having no
 * MTA-STS, though a cached policy still applies).
 */
export function selectStsRecord(texts: readonly string[]): Parsed<{ id: string }> | undefined {
  const candidates = texts.filter((text) => VERSION_PREFIX.test(text))
  if (candidates.length === 0) return undefined
  if (candidates.length > 1) return bad(`${candidates.length} TXT records start with v=STSv1; RFC 8461 allows exactly one`)
  const parsed = parseStsRecord(candidates[0]!)
  return parsed.ok ? parsed : bad(`the TXT record is malformed: ${parsed.reason}`)
}

// ---- The policy file (RFC 8461 §3.2) ----

const FIELD_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** A host name in A-labels (RFC 5321 Domain), lower-cased; undefined when it is not one. */
function domainName(text: string): string | undefined {
  const name = text.toLowerCase()
  if (name.length === 0 || name.length > 253) return undefined
  return name.split('.').every((label) => LABEL.test(label)) ? name : undefined
}

/**
 * Parses a policy file strictly: `version: STSv1`, `mode: enforce|testing|none`, `max_age` in
 * seconds (0 to 31557600), and `mx` patterns (at least one unless the mode is `none`). Lines end
 * with LF or CRLF; spaces after the colon and at the end of a line, and blank lines, are allowed.
 * Field names and values are case-sensitive, as the RFC's grammar says. Unknown fields are
 * ignored; of a repeated field other than `mx` the first counts (RFC 8461 §3.2). Every refusal
 * says what is wrong and on which line.
 */
export function parseStsPolicy(text: string): Parsed<StsPolicyText> {
  if (Buffer.byteLength(text) > MAX_POLICY_BYTES) return bad(`the policy is larger than ${MAX_POLICY_BYTES} bytes`)
  const seen = new Map<string, string>()
  const mx: string[] = []
  const lines = text.split(/\r?\n/)
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.replace(/[ \t]+$/, '')
    if (line.length === 0) continue
    const where = `line ${index + 1}`
    const colon = line.indexOf(':')
    if (colon < 0) return bad(`${where} is not "name: value": ${quote(line)}`)
    const name = line.slice(0, colon)
    const value = line.slice(colon + 1).replace(/^[ \t]+/, '')
    if (!FIELD_NAME.test(name)) return bad(`${where} has no valid field name: ${quote(line)}`)
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return bad(`${where} holds control characters`)
    switch (name) {
      case 'version':
        if (value !== 'STSv1') return bad(`${where}: version is ${quote(value)}; only STSv1 is known`)
        break
      case 'mode':
        if (!(STS_MODES as readonly string[]).includes(value)) return bad(`${where}: mode is ${quote(value)}; it must be enforce, testing or none`)
        break
      case 'max_age':
        if (!/^\d{1,10}$/.test(value) || Number(value) > MAX_AGE_LIMIT) {
          return bad(`${where}: max_age is ${quote(value)}; it must be a whole number of seconds from 0 to ${MAX_AGE_LIMIT}`)
        }
        break
      case 'mx': {
        const pattern = value.startsWith('*.') ? value.slice(2) : value
        const host = domainName(pattern)
        if (!host) return bad(`${where}: mx ${quote(value)} is not a host name or *. and a host name (A-labels, no trailing dot)`)
        const normal = value.startsWith('*.') ? `*.${host}` : host
        if (!mx.includes(normal)) mx.push(normal)
        continue
      }
      default:
        // An extension: unknown fields are ignored.
        continue
    }
    if (!seen.has(name)) seen.set(name, value)
  }
  const missing = ['version', 'mode', 'max_age'].filter((name) => !seen.has(name))
  if (missing.length > 0) {
    const hint = caseHint(lines, missing)
    return bad(`the policy has no ${missing.join(', ')} field${missing.length > 1 ? 's' : ''}${hint}`)
  }
  const mode = seen.get('mode') as StsMode
  if (mx.length === 0 && mode !== 'none') return bad(`the policy has no mx field; mode ${mode} needs at least one`)
  return ok({ mode, mx, maxAge: Number(seen.get('max_age')) })
}

/** Points out a field that is there in other case, since names are case-sensitive. */
function caseHint(lines: string[], missing: string[]): string {
  const names = lines.map((line) => line.slice(0, Math.max(0, line.indexOf(':'))).trim())
  const near = missing.map((name) => names.find((other) => other !== name && other.toLowerCase() === name)).filter(Boolean)
  return near.length > 0 ? ` (field names are case-sensitive: found ${near.join(', ')})` : ''
}

// ---- Matching (RFC 8461 §4.1) ----

/**
 * Whether an MX host name matches one policy pattern: the same name (case and a trailing dot
 * aside), or for `*.example.com` a name with exactly one more label on the left
 * (`mx1.example.com`, not `example.com` nor `a.b.example.com`).
 */
export function patternMatches(pattern: string, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  const wanted = pattern.toLowerCase()
  if (!wanted.startsWith('*.')) return name === wanted
  const dot = name.indexOf('.')
  return dot > 0 && name.slice(dot + 1) === wanted.slice(2)
}

/** Whether an MX host name matches any of a policy's `mx` patterns. */
export function mxMatches(policy: { readonly mx: readonly string[] }, host: string): boolean {
  return policy.mx.some((pattern) => patternMatches(pattern, host))
}
