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

export const host: Parser<string> = (text) => (isIP(text) || isHostname(text) ? text : undefined)

export const hostname: Parser<string> = (text) => (isHostname(text) ? text.toLowerCase() : undefined)

export const httpUrl: Parser<string> = (text) => {
  if (!URL.canParse(text)) return undefined
  const url = new URL(text)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  return url.toString().replace(/\/$/, '')
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
