import { isIP } from 'node:net'

/** A parser returns the typed value, or undefined when the text is not allowed. */
export type Parser<T> = (text: string) => T | undefined

export interface HostPort {
  host: string
  port: number
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i

export const isHostname = (text: string) => HOSTNAME.test(text)

export const integer =
  (min: number, max: number): Parser<number> =>
  (text) => {
    if (!/^-?\d+$/.test(text.trim())) return undefined
    const value = Number(text)
    return value >= min && value <= max ? value : undefined
  }

/** A decimal number such as `0.3` or `5`, no exponent. */
export const decimal =
  (min: number, max: number): Parser<number> =>
  (text) => {
    if (!/^\d+(\.\d+)?$/.test(text.trim())) return undefined
    const value = Number(text)
    return value >= min && value <= max ? value : undefined
  }

export const host: Parser<string> = (text) => (isIP(text) || isHostname(text) ? text : undefined)

export const hostname: Parser<string> = (text) => (isHostname(text) ? text.toLowerCase() : undefined)

export const httpUrl: Parser<string> = (text) => {
  if (!URL.canParse(text)) return undefined
  const url = new URL(text)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  return url.toString().replace(/\/$/, '')
}

/** A `postgres://` or `postgresql://` URL naming a host. */
export const postgresUrl: Parser<string> = (text) => {
  if (!URL.canParse(text)) return undefined
  const url = new URL(text)
  return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '' ? text : undefined
}

export const oneOf =
  <T extends string>(values: readonly T[]): Parser<T> =>
  (text) =>
    values.includes(text as T) ? (text as T) : undefined

export const nonEmpty: Parser<string> = (text) => (text.length > 0 ? text : undefined)

export const minLength =
  (length: number): Parser<string> =>
  (text) =>
    text.length >= length ? text : undefined

/** `host[:port]`, IPv6 in brackets when a port is given (`[::1]:5353`). */
export function hostPort(text: string, defaultPort: number): HostPort | undefined {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  const [hostText, portText] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : isIP(text) === 6
      ? [text, undefined]
      : (text.split(':') as [string, string | undefined])
  if (!hostText || host(hostText) === undefined) return undefined
  const port = portText === undefined ? defaultPort : integer(1, 65535)(portText)
  return port === undefined ? undefined : { host: hostText, port }
}

export const hostPortList =
  (defaultPort: number): Parser<readonly HostPort[]> =>
  (text) => {
    const items = text.split(',').map((item) => item.trim()).filter(Boolean)
    const parsed = items.map((item) => hostPort(item, defaultPort))
    if (parsed.length === 0 || parsed.some((item) => item === undefined)) return undefined
    return parsed as HostPort[]
  }

/** A comma-separated list whose items each pass `item`. */
export const listOf =
  (item: Parser<string>): Parser<readonly string[]> =>
  (text) => {
    const items = text.split(',').map((part) => part.trim()).filter(Boolean)
    const parsed = items.map(item)
    return parsed.some((value) => value === undefined) ? undefined : (parsed as string[])
  }

export const matching =
  (pattern: RegExp): Parser<string> =>
  (text) =>
    pattern.test(text) ? text : undefined

export const boolean: Parser<boolean> = (text) =>
  /^(true|1|yes|on)$/i.test(text) ? true : /^(false|0|no|off)$/i.test(text) ? false : undefined

export interface Smarthost {
  host: string
  port: number
  secure: boolean
  auth?: { user: string; pass: string }
}

/** smtp://user:pass@host:port (STARTTLS when offered) or smtps://... (TLS from the start). */
export const smarthostUrl: Parser<Smarthost | null> = (text) => {
  if (!URL.canParse(text)) return undefined
  const url = new URL(text)
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return undefined
  const secure = url.protocol === 'smtps:'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (!host || url.pathname.replace(/^\/+/, '') !== '') return undefined
  const port = url.port ? Number(url.port) : secure ? 465 : 587
  const auth = url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined
  return { host, port, secure, ...(auth && { auth }) }
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `1m,5m,1h` as milliseconds; undefined when any part is not a positive duration. */
export const durationList: Parser<readonly number[]> = (text) => {
  const parts = text.split(',').map((part) => /^\s*(\d+)\s*([smhd])\s*$/.exec(part))
  if (parts.some((m) => !m || Number(m[1]) === 0)) return undefined
  return parts.map((m) => Number(m![1]) * UNITS[m![2]!]!)
}

export const formatDurations = (durations: readonly number[]) =>
  durations
    .map((ms) => {
      const unit = ['d', 'h', 'm', 's'].find((u) => ms % UNITS[u]! === 0) ?? 's'
      return `${ms / UNITS[unit]!}${unit}`
    })
    .join(',')

/** A port, or `off` (null) for a listener that should not run. */
export const portOrOff: Parser<number | null> = (text) => (text === 'off' ? null : integer(0, 65535)(text))
