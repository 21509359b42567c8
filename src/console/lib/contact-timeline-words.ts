import type { EventLine } from './event-words.ts'

/**
 * A contact's events (GET /contacts/{id}/events) in words: what each is, and what it says as
 * labelled lines. The server's own events (an edit, a subscription, a segment entered or left)
 * read as sentences; an event the project tracked keeps its name.
 */

export interface EventWords {
  title: string
  /** Recorded by Mailstead, or tracked by the project. */
  kind: 'change' | 'tracked'
  /** A segment the event names, to link to. */
  segmentId?: string
  lines: EventLine[]
}

const SEGMENT = /^segment\.(.+)\.(entered|exited)$/

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A value as a person reads it in "from → to": nothing is "(none)", text is quoted. */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return '(none)'
  if (typeof value === 'string') return `"${value}"`
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  return typeof value === 'number' ? String(value) : JSON.stringify(value)
}

const change = (label: string, value: unknown): EventLine => {
  const { from, to } = isRecord(value) ? value : { from: undefined, to: undefined }
  return { label, text: `${shown(from)} → ${shown(to)}` }
}

/** What contact.updated says changed: each data key, the subscription, the address. */
function changeLines(data: unknown): EventLine[] {
  if (!isRecord(data)) return []
  const lines: EventLine[] = []
  if (isRecord(data.data)) for (const [key, value] of Object.entries(data.data)) lines.push(change(key, value))
  if (data.subscribed !== undefined) lines.push(change('Subscribed', data.subscribed))
  if (data.email !== undefined) lines.push(change('Address', data.email))
  return lines
}

/** An event's data as it came: each key with its value (text as it is, the rest as JSON). */
function dataLines(data: unknown): EventLine[] {
  if (!isRecord(data)) return []
  return Object.entries(data).map(([label, value]) => ({ label, text: typeof value === 'string' ? value : shown(value) }))
}

export function contactEventWords(name: string, data: unknown): EventWords {
  const segment = SEGMENT.exec(name)
  if (segment) return { title: segment[2] === 'entered' ? 'Entered a segment' : 'Left a segment', kind: 'change', segmentId: segment[1], lines: [] }
  switch (name) {
    case 'contact.updated':
      return { title: 'Contact changed', kind: 'change', lines: changeLines(data) }
    case 'contact.subscribed':
      return { title: 'Subscribed', kind: 'change', lines: dataLines(data) }
    case 'contact.unsubscribed':
      return { title: 'Unsubscribed', kind: 'change', lines: dataLines(data) }
    default:
      return { title: name, kind: 'tracked', lines: dataLines(data) }
  }
}
