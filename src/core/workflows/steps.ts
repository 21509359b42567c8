import type { ContactRow, Db } from '../../db/schema.ts'
import { everyContact } from '../contacts/contact-queries.ts'
import type { MessageParts } from '../emails/message.ts'
import { mailboxOf } from '../emails/mailbox.ts'
import { enqueueEmail, prepareEmail, type SendSettings } from '../emails/send.ts'
import { updateContact } from '../contacts/contacts.service.ts'
import { compileCondition } from '../segments/compile.ts'
import { compileContext } from '../segments/membership.ts'
import { render } from '../templates/render.ts'
import type { LinkSettings } from '../tracking/links.ts'
import type { TriggerFacts } from './entry.ts'
import { attemptsAt, type ExecutionRow, type WorkflowRow } from './executions.repository.ts'
import type { Step, WebhookConfig } from './workflow.ts'

/** What a step decided: where the run goes, and what to write as it goes there. */
export type Outcome =
  /** Follow one of the step's exits; `write` runs in the transaction that moves the run. */
  | { kind: 'exit'; exit: string; outcome: string; detail?: Record<string, unknown>; write?: (trx: Db) => Promise<Record<string, unknown> | void> }
  /** Stay on the step until `until` (or until `waitEvent` arrives). */
  | { kind: 'hold'; until: number; waitEvent?: string; outcome: string; detail?: Record<string, unknown> }
  | { kind: 'exited' }
  | { kind: 'fail'; error: string; detail?: Record<string, unknown> }

export interface WebhookCall extends WebhookConfig {
  /** The same on every retry of this step of this run: receivers can drop repeats. */
  id: string
  /** The workflow's signing secret. */
  secret: string
  body: unknown
}

export interface StepDeps {
  db: Db
  build: (parts: MessageParts) => Promise<Uint8Array>
  links: LinkSettings
  sendSettings: SendSettings
  /** Calls a webhook (signed, guarded against private targets); never throws for network trouble. */
  call: (request: WebhookCall) => Promise<{ ok: boolean; status: number | null; error?: string; refused?: true }>
  /** The signing secret of a workflow's WEBHOOK steps. */
  signingSecret: (workflow: WorkflowRow) => string
}

export interface StepInput {
  execution: ExecutionRow
  workflow: WorkflowRow
  step: Step
  contact: ContactRow
  trigger: TriggerFacts
  now: number
}

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000 } as const

/** Waits between the tries of a webhook that failed: a minute, then five. */
export const WEBHOOK_RETRIES_MS = [60_000, 300_000] as const

/** What placeholders see: the contact's data and address, and the event that started the run. */
export function valuesOf(contact: ContactRow, trigger: TriggerFacts) {
  const data = JSON.parse(contact.data) as Record<string, unknown>
  return { ...data, email: contact.email, data, contact: { id: contact.id, email: contact.email, data }, event: trigger }
}

/** Runs one step of one run. Nothing is written here: the runner writes the outcome. */
export async function runStep(deps: StepDeps, input: StepInput): Promise<Outcome> {
  const { step, execution, now } = input
  switch (step.type) {
    case 'SEND_EMAIL':
      return sendEmail(deps, input, step.config)
    case 'DELAY': {
      const until = execution.step_since + step.config.amount * UNIT_MS[step.config.unit]
      return now >= until ? { kind: 'exit', exit: 'next', outcome: 'waited' } : { kind: 'hold', until, outcome: 'delaying', detail: { until: new Date(until).toISOString() } }
    }
    case 'WAIT_FOR_EVENT': {
      const until = execution.step_since + step.config.timeoutSeconds * 1000
      if (now >= until) return { kind: 'exit', exit: 'onTimeout', outcome: 'timed out' }
      return { kind: 'hold', until, waitEvent: step.config.eventName, outcome: 'waiting', detail: { eventName: step.config.eventName, until: new Date(until).toISOString() } }
    }
    case 'CONDITION':
      return (await matches(deps.db, input, step.config.condition)) ? { kind: 'exit', exit: 'yes', outcome: 'yes' } : { kind: 'exit', exit: 'no', outcome: 'no' }
    case 'UPDATE_CONTACT': {
      const changes = { data: step.config.data, subscribed: step.config.subscribed }
      return { kind: 'exit', exit: 'next', outcome: 'updated', detail: changes, write: (trx) => updateContact(trx, input.workflow.project_id, input.contact.id, changes, now).then(() => {}) }
    }
    case 'WEBHOOK':
      return callWebhook(deps, input, step.config)
    case 'EXIT':
      return { kind: 'exited' }
  }
}

async function matches(db: Db, input: StepInput, condition: Parameters<typeof compileCondition>[0]) {
  const context = await compileContext(db, input.workflow.project_id, input.now)
  const row = await everyContact(db).select('c.id').where('c.id', '=', input.contact.id).where(compileCondition(condition, context)).executeTakeFirst()
  return row !== undefined
}

/**
 * An email to the contact, personalised, queued in the transaction that moves the run on. Marketing
 * mail (the default) goes to subscribed contacts only; a transactional step's to every contact.
 */
async function sendEmail(deps: StepDeps, input: StepInput, config: Extract<Step, { type: 'SEND_EMAIL' }>['config']): Promise<Outcome> {
  if (input.contact.subscribed !== 1 && !config.transactional) return { kind: 'exit', exit: 'next', outcome: 'skipped', detail: { reason: 'the contact is unsubscribed' } }
  const email = await prepareEmail(
    deps.db,
    input.workflow.project_id,
    {
      from: mailboxOf(config.from, 'from'),
      to: [{ address: input.contact.email }],
      subject: config.subject,
      html: config.body,
      templateId: config.templateId,
      variables: { event: input.trigger, contact: valuesOf(input.contact, input.trigger).contact },
      contactId: input.contact.id,
      stream: config.transactional ? 'transactional' : 'marketing',
      feedback: { campaign: input.workflow.id, project: input.workflow.project_id, stream: 'workflow' },
    },
    input.now,
    deps.build,
    deps.links,
  )
  return {
    kind: 'exit',
    exit: 'next',
    outcome: 'sent',
    write: async (trx) => ({ emailId: (await enqueueEmail(trx, email, deps.sendSettings, input.now)).emailId }),
  }
}

/** Strings anywhere in the body have their placeholders filled. */
const fill = (value: unknown, values: Record<string, unknown>): unknown =>
  typeof value === 'string'
    ? render(value, values, { html: false })
    : Array.isArray(value)
      ? value.map((v) => fill(v, values))
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, values)]))
        : value

async function callWebhook(deps: StepDeps, input: StepInput, config: WebhookConfig): Promise<Outcome> {
  const { execution, workflow, step, contact, trigger, now } = input
  const values = valuesOf(contact, trigger)
  const body = config.body === undefined ? { workflowId: workflow.id, executionId: execution.id, stepId: step.id, contact: values.contact, event: trigger } : fill(config.body, values)
  const result = await deps.call({ ...config, id: `${execution.id}.${step.id}.${execution.step_since}`, secret: deps.signingSecret(workflow), body })
  if (result.ok) return { kind: 'exit', exit: 'next', outcome: 'called', detail: { status: result.status } }
  const tried = await attemptsAt(deps.db, execution)
  const detail = { status: result.status, error: result.error ?? `the endpoint answered ${result.status}` }
  if (result.refused || tried >= WEBHOOK_RETRIES_MS.length) return { kind: 'fail', error: `WEBHOOK ${step.id}: ${detail.error}`, detail }
  return { kind: 'hold', until: now + WEBHOOK_RETRIES_MS[tried]!, outcome: 'retrying', detail }
}
