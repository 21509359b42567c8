import { t } from 'elysia'
import { intQuery, oneOf } from '../schemas.ts'

const Target = t.Union([t.String(), t.Null()], { description: 'The id of the next step; null (or absent): the run completes here' })

export const StepSchema = t.Object({
  id: t.String(),
  type: oneOf(['SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'UPDATE_CONTACT', 'WEBHOOK', 'EXIT']),
  config: t.Unknown({ description: 'The configuration of its type' }),
  next: t.Optional(Target),
  yes: t.Optional(Target),
  no: t.Optional(Target),
  onEvent: t.Optional(Target),
  onTimeout: t.Optional(Target),
}, { title: 'WorkflowStep' })

export const StepInput = t.Record(t.String(), t.Unknown(), {
  description:
    '{id?, type, config, and its exits}. SEND_EMAIL {templateId | subject + body, from, transactional?} next (marketing mail unless transactional: true); DELAY {amount, unit: minutes|hours|days|weeks} next; ' +
    'WAIT_FOR_EVENT {eventName, timeoutSeconds} onEvent, onTimeout; CONDITION {condition} yes, no; UPDATE_CONTACT {data?, subscribed?} next; ' +
    'WEBHOOK {url, method, headers?, body?} next; EXIT {}. An id is 1-64 of A-Z a-z 0-9 _ -; without one a step is step_<position>.',
})

export const TriggerConfigField = t.Unknown({
  description:
    'EVENT {eventName, condition?}: a tracked event, email.delivered|opened|clicked|bounced|complained or segment.<id>.entry|exit. ' +
    'MANUAL {}. SCHEDULE {cron, timezone (IANA, UTC when absent), segmentId?}: at most once a minute.',
})

export const TriggerTypeField = oneOf(['EVENT', 'MANUAL', 'SCHEDULE'])

export const WorkflowSchema = t.Object({
  id: t.String(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  enabled: t.Boolean(),
  triggerType: TriggerTypeField,
  triggerConfig: t.Unknown(),
  allowReentry: t.Boolean(),
  projectId: t.String(),
  steps: t.Array(StepSchema),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
}, { title: 'Workflow' })

export const CreatedWorkflowSchema = t.Composite([
  WorkflowSchema,
  t.Object({ signingSecret: t.String({ description: 'Signs the requests of its WEBHOOK steps. Shown this once: keep it.' }) }),
], { title: 'CreatedWorkflow' })

const Time = t.Union([t.String({ format: 'date-time' }), t.Null()])

export const ExecutionSchema = t.Object({
  id: t.String(),
  workflowId: t.String(),
  contactId: t.String(),
  state: oneOf(['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED']),
  currentStep: t.Union([t.String(), t.Null()]),
  nextRunAt: Time,
  trigger: t.Object({ name: t.String(), data: t.Unknown(), at: Time }),
  error: t.Union([t.String(), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
  finishedAt: Time,
  history: t.Optional(t.Array(t.Object({ stepId: t.String(), type: t.String(), outcome: t.String(), detail: t.Unknown(), at: t.String({ format: 'date-time' }) }))),
}, { title: 'WorkflowExecution' })

export const ExitField = oneOf(['next', 'yes', 'no', 'onEvent', 'onTimeout'], 'The exit of `after` that leads to the new step; needed when it has several')

export const PageQuery = t.Object({
  page: t.Optional(intQuery('page', 1, 1_000_000, 'Page number, 1 when absent')),
  pageSize: t.Optional(intQuery('pageSize', 1, 100, 'Page size, 20 when absent')),
})
