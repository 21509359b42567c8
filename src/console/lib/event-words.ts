/**
 * An email event's data (src/core/queue/settle.ts, src/core/emails/feedback.ts, engagement.ts,
 * emails.service.ts) in words a person reads: each field with its label, in a fixed order, its
 * value as a sentence fragment or a time (never a raw key, an object's JSON or an ISO string).
 */

/** One line of an event: its label and either text or an instant to show in the reader's zone. */
export type EventLine = { label: string; text: string } | { label: string; time: string }

/** The labels of the fields events carry, in the order they are shown. */
const LABELS: ReadonlyArray<readonly [string, string]> = [
  ['recipient', 'Recipient'],
  ['attempt', 'Attempt'],
  ['mx', 'Remote server'],
  ['remoteMta', 'Remote server'],
  ['reportingMta', 'Reported by'],
  ['ip', 'IP address'],
  ['tls', 'Encryption'],
  ['mtaSts', 'MTA-STS policy'],
  ['smtpCode', 'SMTP code'],
  ['enhancedCode', 'Enhanced status'],
  ['status', 'Enhanced status'],
  ['action', 'Action'],
  ['response', 'Response'],
  ['diagnostic', 'Response'],
  ['category', 'Reason'],
  ['reason', 'Reason'],
  ['hard', 'Bounce type'],
  ['feedbackType', 'Complaint type'],
  ['source', 'Reported in'],
  ['nextAttemptAt', 'Next attempt'],
  ['scheduledAt', 'Scheduled for'],
  ['url', 'Link'],
  ['userAgent', 'Browser'],
]

const LABEL = new Map(LABELS)
const ORDER = new Map(LABELS.map(([key], i) => [key, i]))

/** `remoteMta` as "Remote mta", `next_attempt` as "Next attempt": for a field this console does not know yet. */
export function fieldWords(key: string): string {
  const words = key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** `mailbox_full` as "mailbox full". */
const spaced = (text: string) => text.replace(/[_-]+/g, ' ')

/** An ISO 8601 instant, as the API writes them. */
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** How a message travelled: "TLS 1.3, certificate verified" or "Not encrypted". */
function tlsWords(value: unknown): string {
  if (!isRecord(value)) return 'Not encrypted'
  const version = typeof value.version === 'string' ? value.version.replace(/^TLSv/, 'TLS ') : 'TLS'
  const cipher = typeof value.cipher === 'string' ? ` (${value.cipher})` : ''
  return `${version}${cipher}, certificate ${value.verified ? 'verified' : 'not verified'}`
}

/** The destination's MTA-STS policy: "enforce, applied", "none" when it has none. */
function mtaStsWords(value: unknown): string {
  if (!isRecord(value)) return 'None published'
  const mode = typeof value.mode === 'string' ? value.mode : 'unknown'
  const failure = typeof value.failure === 'string' ? `: ${value.failure}` : ''
  return `${mode}, ${value.applied ? 'applied' : 'not applied'}${failure}`
}

/** Any other value as text: a list joined, an object as its fields in words. */
function plainWords(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number') return value.toLocaleString()
  if (typeof value === 'boolean') return value ? 'Yes' : 'No'
  if (Array.isArray(value)) return value.map(plainWords).join(', ')
  if (isRecord(value)) return Object.entries(value).map(([k, v]) => `${fieldWords(k).toLowerCase()} ${plainWords(v)}`).join(', ')
  return String(value)
}

function lineOf(key: string, value: unknown): EventLine {
  const label = LABEL.get(key) ?? fieldWords(key)
  if (typeof value === 'string' && ISO.test(value) && !Number.isNaN(Date.parse(value))) return { label, time: value }
  switch (key) {
    case 'tls':
      return { label, text: tlsWords(value) }
    case 'mtaSts':
      return { label, text: mtaStsWords(value) }
    case 'hard':
      return { label, text: value ? 'Hard: the address does not take mail' : 'Soft: it may take mail later' }
    case 'category':
    case 'reason':
    case 'feedbackType':
    case 'source':
      return { label, text: typeof value === 'string' ? spaced(value) : plainWords(value) }
    default:
      return { label, text: plainWords(value) }
  }
}

/**
 * What an event says besides its status, as labelled lines in a fixed order (known fields first,
 * then others by name); empty fields are left out. Of two fields with one label (a report's
 * `status` and an attempt's `enhancedCode`), the first is kept.
 */
export function eventLines(data: unknown): EventLine[] {
  if (!isRecord(data)) return []
  const entries = Object.entries(data).filter(([key, value]) => value !== undefined && value !== '' && (value !== null || key === 'tls' || key === 'mtaSts'))
  entries.sort(([a], [b]) => (ORDER.get(a) ?? LABELS.length) - (ORDER.get(b) ?? LABELS.length) || a.localeCompare(b))
  const seen = new Set<string>()
  const lines: EventLine[] = []
  for (const [key, value] of entries) {
    const line = lineOf(key, value)
    if (seen.has(line.label)) continue
    seen.add(line.label)
    lines.push(line)
  }
  return lines
}

/** Statuses after which an email changes no more on its own (an open or a click may still come, but nothing waits on the server). */
const SETTLED = new Set(['DELIVERED', 'BOUNCED', 'FAILED', 'CANCELLED', 'SUPPRESSED', 'COMPLAINED', 'OPENED', 'CLICKED'])

/** While mail is on its way (queued, left for its MX) its status moves within seconds; read it again this often. */
export const MOVING_POLL_MS = 2_000
/** A deferred or scheduled email moves at its next attempt or its time, minutes away: read it less often. */
export const WAITING_POLL_MS = 30_000

/**
 * How soon to read emails shown again, given their statuses: every 2 s while one is on its way,
 * every 30 s while one waits (deferred, scheduled), not at all once all are settled. React Query
 * pauses the interval while the tab is hidden.
 */
export function pollEvery(statuses: readonly string[]): number | false {
  if (statuses.some((s) => s === 'QUEUED' || s === 'SENT')) return MOVING_POLL_MS
  if (statuses.some((s) => !SETTLED.has(s))) return WAITING_POLL_MS
  return false
}
