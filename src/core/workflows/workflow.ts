import type { Condition } from '../segments/condition.ts'

/*
 * A workflow's shape: its trigger and its steps, a graph of ids and transitions. These are the
 * types the checks produce (graph.ts, trigger.ts) and the engine runs (runner.ts).
 */

export type TriggerType = 'EVENT' | 'MANUAL' | 'SCHEDULE'

/** EVENT: a tracked event, an email event (email.delivered, ...) or a segment's entry or exit. */
export interface EventTrigger {
  eventName: string
  /** Only contacts this matches (the segments' condition language) enter. */
  condition?: Condition
}

/** SCHEDULE: at each tick of `cron` in `timezone`, the segment's members (every subscribed contact without one) enter. */
export interface ScheduleTrigger {
  cron: string
  timezone: string
  segmentId?: string
}

export type TriggerConfig = EventTrigger | ScheduleTrigger | Record<string, never>

export type DelayUnit = 'minutes' | 'hours' | 'days' | 'weeks'

export type Step =
  | { id: string; type: 'SEND_EMAIL'; config: SendEmailConfig; next: string | null }
  | { id: string; type: 'DELAY'; config: { amount: number; unit: DelayUnit }; next: string | null }
  | { id: string; type: 'WAIT_FOR_EVENT'; config: { eventName: string; timeoutSeconds: number }; onEvent: string | null; onTimeout: string | null }
  | { id: string; type: 'CONDITION'; config: { condition: Condition }; yes: string | null; no: string | null }
  | { id: string; type: 'UPDATE_CONTACT'; config: { data?: Record<string, unknown>; subscribed?: boolean }; next: string | null }
  | { id: string; type: 'WEBHOOK'; config: WebhookConfig; next: string | null }
  | { id: string; type: 'EXIT'; config: Record<string, never> }

export type StepType = Step['type']

/** A template, or a subject and body; placeholders see the contact and the triggering event. */
export interface SendEmailConfig {
  templateId?: string
  subject?: string
  body?: string
  /** `address` or `Name <address>`, on a verified domain of the project. */
  from: string
  /**
   * The email is transactional (a receipt, an account notice): no unsubscribe headers or footer,
   * the domain's transactional tracking, and sent to unsubscribed contacts too. Absent: marketing.
   */
  transactional?: boolean
}

export interface WebhookConfig {
  url: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  headers?: Record<string, string>
  /** Sent as JSON; placeholders in its strings are filled like an email's. */
  body?: unknown
}

/** The names of a step's exits, in the order they are shown. A null target ends the run there. */
export const EXITS: Record<StepType, readonly string[]> = {
  SEND_EMAIL: ['next'],
  DELAY: ['next'],
  WAIT_FOR_EVENT: ['onEvent', 'onTimeout'],
  CONDITION: ['yes', 'no'],
  UPDATE_CONTACT: ['next'],
  WEBHOOK: ['next'],
  EXIT: [],
}

/** The targets of a step's exits (null: the run completes there). */
export const targetsOf = (step: Step): Array<string | null> => EXITS[step.type].map((exit) => (step as unknown as Record<string, string | null>)[exit] ?? null)

export type ExecutionState = 'RUNNING' | 'WAITING' | 'COMPLETED' | 'EXITED' | 'FAILED' | 'CANCELLED'
