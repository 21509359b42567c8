/**
 * The email log's filters, kept in the address's query string so that a reload or a shared link
 * shows the same list: what the address says, what it becomes, and what GET /api/v1/emails is
 * asked. Days are the reader's (YYYY-MM-DD in their time zone); the API is asked for instants.
 */

export const EMAIL_STATUSES = ['SCHEDULED', 'QUEUED', 'SENT', 'DELIVERED', 'DELIVERY_DELAYED', 'BOUNCED', 'FAILED', 'CANCELLED', 'SUPPRESSED', 'COMPLAINED', 'OPENED', 'CLICKED'] as const
export type EmailStatus = (typeof EMAIL_STATUSES)[number]

export interface EmailFilters {
  status?: EmailStatus
  /** Parts of the address, as the API matches them (in any case). */
  recipient?: string
  sender?: string
  subject?: string
  /** A sending domain's id. */
  domainId?: string
  /** First and last day, both included, YYYY-MM-DD in the reader's zone. */
  from?: string
  to?: string
}

/** The order the query string names them in, so one set of filters always makes one address. */
const NAMES = ['status', 'recipient', 'sender', 'subject', 'domainId', 'from', 'to'] as const satisfies readonly (keyof EmailFilters)[]
const TEXTS = new Set(['recipient', 'sender', 'subject'])
/** The API takes 1 to 254 characters. */
const MAX_TEXT = 254
const DAY = /^\d{4}-\d\d-\d\d$/

const isStatus = (value: string): value is EmailStatus => (EMAIL_STATUSES as readonly string[]).includes(value)

/** A calendar day that exists (no 2026-02-30). */
function isDay(value: string): boolean {
  if (!DAY.test(value)) return false
  const [y, m, d] = value.split('-').map(Number) as [number, number, number]
  const date = new Date(y, m - 1, d)
  return date.getFullYear() === y && date.getMonth() === m - 1 && date.getDate() === d
}

/** One filter's value as it may stand, or undefined when it says nothing (blank) or nothing the API would take. */
function cleanValue(name: keyof EmailFilters, raw: string | null | undefined): string | undefined {
  const value = (raw ?? '').trim()
  if (value === '') return undefined
  if (name === 'status') return isStatus(value) ? value : undefined
  if (name === 'domainId') return /^[1-9][0-9]{0,15}$/.test(value) ? value : undefined
  if (name === 'from' || name === 'to') return isDay(value) ? value : undefined
  if (TEXTS.has(name)) return value.slice(0, MAX_TEXT)
  return undefined
}

/** The filters an address's query string (`?status=…`, with or without the `?`) names; what is not a filter is left out. */
export function filtersFromSearch(search: string): EmailFilters {
  const params = new URLSearchParams(search)
  const filters: EmailFilters = {}
  for (const name of NAMES) {
    const value = cleanValue(name, params.get(name))
    if (value !== undefined) (filters as Record<string, string>)[name] = value
  }
  return filters
}

/** The filters as a form's values give them (blank ones left out). */
export const filtersFromForm = (values: FormData): EmailFilters => filtersFromSearch(new URLSearchParams([...values].filter((e): e is [string, string] => typeof e[1] === 'string')).toString())

/** The query string of the filters, without the `?`: empty when there are none. */
export function searchOf(filters: EmailFilters): string {
  const params = new URLSearchParams()
  for (const name of NAMES) {
    const value = filters[name]
    if (value !== undefined && value !== '') params.set(name, value)
  }
  return params.toString()
}

export const hasFilters = (filters: EmailFilters) => searchOf(filters) !== ''

/** Midnight at the start of a day in the reader's zone, as an instant. */
function startOfDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  return new Date(y, m - 1, d, 0, 0, 0, 0)
}

/** The last millisecond of a day in the reader's zone. */
function endOfDay(day: string): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  return new Date(y, m - 1, d, 23, 59, 59, 999)
}

/** What GET /api/v1/emails is asked for these filters (its query names: startDate, endDate, domainId…). */
export function apiQueryOf(filters: EmailFilters): Record<string, string | undefined> {
  return {
    status: filters.status,
    recipient: filters.recipient,
    sender: filters.sender,
    subject: filters.subject,
    domainId: filters.domainId,
    startDate: filters.from ? startOfDay(filters.from).toISOString() : undefined,
    endDate: filters.to ? endOfDay(filters.to).toISOString() : undefined,
  }
}

/** What is wrong with filters before the API is asked: a range that ends before it starts. */
export function filterProblems(filters: EmailFilters): Partial<Record<keyof EmailFilters, string>> {
  return filters.from && filters.to && filters.to < filters.from ? { to: 'must not be before the first day' } : {}
}

/** A status as people read it: "Delivery delayed". */
export const statusName = (status: string) => status.charAt(0) + status.slice(1).toLowerCase().replace(/_/g, ' ')

/** The badge look of a status: good, bad, waiting or plain. */
export function statusTone(status: string): 'ok' | 'bad' | 'wait' | 'plain' {
  if (['DELIVERED', 'OPENED', 'CLICKED', 'SENT'].includes(status)) return 'ok'
  if (['BOUNCED', 'FAILED', 'COMPLAINED', 'SUPPRESSED'].includes(status)) return 'bad'
  if (['SCHEDULED', 'QUEUED', 'DELIVERY_DELAYED'].includes(status)) return 'wait'
  return 'plain'
}

/** `datetime-local` input value (YYYY-MM-DDTHH:MM, the reader's zone) of an instant. */
export function localInputOf(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

/** The instant a `datetime-local` value names in the reader's zone, as ISO 8601; undefined if it names none. */
export function isoOfLocalInput(value: string): string | undefined {
  const match = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?$/.exec(value)
  if (!match) return undefined
  const [y, mo, d, h, mi, s] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number]
  const date = new Date(y, mo - 1, d, h, mi, s)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}
