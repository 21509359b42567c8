/**
 * Times as the console shows them: in the browser's time zone, with the UTC instant on hover
 * (the title of a <time> element). The API sends ISO 8601 UTC.
 */

export interface ShownTime {
  /** For <time dateTime>: the instant as the API gave it, normalised. */
  dateTime: string
  /** In the reader's zone, e.g. "24 Nov 2026, 07:33:21". */
  local: string
  /** e.g. "2026-11-24 06:33:21 UTC", for the title. */
  utc: string
}

const formats = new Map<string, Intl.DateTimeFormat>()

function formatFor(locale: string | undefined, timeZone: string | undefined): Intl.DateTimeFormat {
  const key = `${locale ?? ''}|${timeZone ?? ''}`
  let format = formats.get(key)
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone })
    formats.set(key, format)
  }
  return format
}

/**
 * An API time, shown; undefined when it is none or not a time. `locale` and `timeZone` are the
 * browser's unless given (tests give them).
 */
export function showTime(value: string | number | null | undefined, options: { locale?: string; timeZone?: string } = {}): ShownTime | undefined {
  if (value === null || value === undefined || value === '') return undefined
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return undefined
  const iso = date.toISOString()
  return {
    dateTime: iso,
    local: formatFor(options.locale, options.timeZone).format(date),
    utc: `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`,
  }
}
