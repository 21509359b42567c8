import { Cron } from 'croner'
import { invalid } from '../../lib/errors.ts'
import { checkCondition } from '../segments/condition.ts'
import type { EventTrigger, ScheduleTrigger, TriggerConfig, TriggerType } from './workflow.ts'

/*
 * A workflow's trigger, checked: which events start it, or when its schedule fires. Pure, except
 * that a schedule is judged from `now` on (one that has stopped firing is refused).
 */

export const EMAIL_EVENTS = ['email.delivered', 'email.opened', 'email.clicked', 'email.bounced', 'email.complained'] as const

const SEGMENT_EVENT = /^segment\.([^.]+)\.(entry|exit)$/

/** The segment a `segment.<id>.entry|exit` event is about, if it is one. */
export const segmentOfEvent = (name: string): string | undefined => SEGMENT_EVENT.exec(name)?.[1]

/**
 * An event a workflow can start on or wait for: a tracked event, an email event of the contact's
 * (email.delivered, ...), or a tracked segment's entry or exit (segment.<id>.entry).
 */
export function checkWorkflowEvent(input: unknown, path: string): string {
  if (typeof input !== 'string' || input.length === 0 || input.length > 100) throw invalid(path, 'must be an event name of 1 to 100 characters')
  if (/[\u0000-\u001f\u007f]/.test(input)) throw invalid(path, 'must not contain control characters')
  const lower = input.toLowerCase()
  if (lower.startsWith('email.') && !(EMAIL_EVENTS as readonly string[]).includes(input)) {
    throw invalid(path, `email events are ${EMAIL_EVENTS.join(', ')}`)
  }
  if (lower.startsWith('segment.') && !SEGMENT_EVENT.test(input)) throw invalid(path, 'segment events are segment.<id>.entry and segment.<id>.exit')
  if (lower.startsWith('contact.')) throw invalid(path, 'contact.* events cannot be used here; use a tracked event, an email.* event or a segment event')
  return input
}

const SHAPES: Record<TriggerType, { keys: string[]; shape: string }> = {
  EVENT: { keys: ['eventName', 'condition'], shape: '{eventName, condition?}' },
  MANUAL: { keys: [], shape: '{}' },
  SCHEDULE: { keys: ['cron', 'timezone', 'segmentId'], shape: '{cron, timezone, segmentId?}' },
}

/**
 * The trigger configuration for `type`, checked and normalized; a 422 naming the path under
 * `field` otherwise. Whether named segments exist is the service's to check.
 */
export function checkTrigger(type: TriggerType, input: unknown, field = 'triggerConfig', now = Date.now()): TriggerConfig {
  const { keys, shape } = SHAPES[type]
  const config = type === 'MANUAL' && (input === undefined || input === null) ? {} : input
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw invalid(field, `must be an object ${shape} for a ${type} trigger`)
  const unknown = Object.keys(config).find((key) => !keys.includes(key))
  if (unknown !== undefined) throw invalid(`${field}.${unknown}`, `is not part of a ${type} trigger ${shape}`)
  const raw = config as Record<string, unknown>
  if (type === 'EVENT') return checkEventTrigger(raw, field)
  if (type === 'SCHEDULE') return checkSchedule(raw, field, now)
  return {}
}

function checkEventTrigger(raw: Record<string, unknown>, field: string): EventTrigger {
  const eventName = checkWorkflowEvent(raw.eventName, `${field}.eventName`)
  if (raw.condition === undefined || raw.condition === null) return { eventName }
  return { eventName, condition: checkCondition(raw.condition, `${field}.condition`) }
}

/** Runs looked at to judge how often a schedule fires: enough to see two seconds of one minute. */
const RUNS_CHECKED = 10
const MINUTE_MS = 60_000

function checkSchedule(raw: Record<string, unknown>, field: string, now: number): ScheduleTrigger {
  const timezone = checkTimezone(raw.timezone ?? 'UTC', `${field}.timezone`)
  if (typeof raw.cron !== 'string' || raw.cron.trim() === '' || raw.cron.length > 200) throw invalid(`${field}.cron`, 'must be a cron expression of at most 200 characters')
  const cron = raw.cron.trim().replace(/\s+/g, ' ')
  const runs = cronOf(cron, timezone, `${field}.cron`).nextRuns(RUNS_CHECKED, new Date(now))
  if (runs.length === 0) throw invalid(`${field}.cron`, `never fires (after ${new Date(now).toISOString()})`)
  const tooSoon = runs.findIndex((run, i) => i > 0 && run.getTime() - runs[i - 1]!.getTime() < MINUTE_MS)
  if (tooSoon > 0) throw invalid(`${field}.cron`, `fires more often than once a minute (${runs[tooSoon - 1]!.toISOString()}, then ${runs[tooSoon]!.toISOString()})`)
  if (raw.segmentId === undefined || raw.segmentId === null) return { cron, timezone }
  if (typeof raw.segmentId !== 'string' || raw.segmentId === '') throw invalid(`${field}.segmentId`, 'must be the id of a segment')
  return { cron, timezone, segmentId: raw.segmentId }
}

/** An IANA time zone that exists, in its canonical spelling (america/new_york: America/New_York). */
function checkTimezone(input: unknown, path: string): string {
  if (typeof input !== 'string' || input === '' || input.length > 100) throw invalid(path, 'must be an IANA time zone such as Europe/Paris or UTC')
  try {
    return new Intl.DateTimeFormat('en', { timeZone: input }).resolvedOptions().timeZone
  } catch {
    throw invalid(path, `there is no time zone ${input}; use an IANA name such as Europe/Paris or UTC`)
  }
}

function cronOf(cron: string, timezone: string, path: string): Cron {
  try {
    return new Cron(cron, { timezone })
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error)
    throw invalid(path, `is not a cron expression: ${reason}`)
  }
}

/** When a checked schedule fires next, strictly after `after` (epoch ms); null when it never will again. */
export function nextTick(config: ScheduleTrigger, after: number): number | null {
  return new Cron(config.cron, { timezone: config.timezone }).nextRun(new Date(after))?.getTime() ?? null
}
