import { Elysia, t } from 'elysia'
import * as executions from '../../core/workflows/workflow-executions.service.ts'
import { deleteStep, insertStep, patchStep } from '../../core/workflows/graph-edit.ts'
import * as workflows from '../../core/workflows/workflows.service.ts'
import type { Db } from '../../db/schema.ts'
import { invalid } from '../../lib/errors.ts'
import { requireKey } from '../auth.ts'
import type { HttpDeps } from '../deps.ts'
import { authErrors, ErrorSchema, strictObject } from '../schemas.ts'
import { CreatedWorkflowSchema, ExecutionSchema, ExitField, PageQuery, StepInput, TriggerConfigField, TriggerTypeField, WorkflowSchema } from './workflow-schemas.ts'

const Fields = {
  name: t.String(),
  description: t.Optional(t.Union([t.String(), t.Null()])),
  triggerType: TriggerTypeField,
  triggerConfig: t.Optional(TriggerConfigField),
  enabled: t.Optional(t.Boolean({ description: 'false when absent; a workflow needs steps to be enabled' })),
  allowReentry: t.Optional(t.Boolean({ description: 'Whether a contact may run through it again once a run has ended; false when absent' })),
  steps: t.Optional(t.Array(StepInput, { description: 'The whole graph; the first step is the entry. Absent: no steps yet' })),
}
const NewWorkflow = strictObject(Fields, { title: 'NewWorkflow' })
const WorkflowChanges = t.Partial(NewWorkflow, { title: 'WorkflowChanges', additionalProperties: false })

const Target = t.Union([t.String(), t.Null()])
const StepChanges = strictObject({
  config: t.Optional(t.Unknown({ description: 'The whole new config of the step' })),
  next: t.Optional(Target),
  yes: t.Optional(Target),
  no: t.Optional(Target),
  onEvent: t.Optional(Target),
  onTimeout: t.Optional(Target),
}, { title: 'StepChanges' })

const Contacts = strictObject({
  contactIds: t.Optional(t.Array(t.String(), { maxItems: 1000 })),
  emails: t.Optional(t.Array(t.String(), { maxItems: 1000 })),
})

const IdParams = t.Object({ id: t.String() })
const StepParams = t.Object({ id: t.String(), stepId: t.String() })
const errors = { ...authErrors, 404: ErrorSchema, 409: ErrorSchema }
const tags = ['Workflows']

const needsContacts = (body: typeof Contacts.static) => {
  if (!body.contactIds?.length && !body.emails?.length) throw invalid('body', 'give contactIds or emails')
  return body
}

const needsChanges = (body: typeof StepChanges.static) => {
  if (Object.keys(body).length === 0) throw invalid('body', 'give the config or a transition to change')
  return body
}

export const workflowRoutes = (deps: HttpDeps) => {
  const write = <T>(work: (trx: Db, at: number) => Promise<T>) => {
    const at = deps.clock.now()
    return deps.writer.run((trx) => work(trx, at))
  }
  return new Elysia({ prefix: '/workflows' })
    .use(requireKey(deps))
    .get('', ({ query, caller }) => workflows.listWorkflows(deps.db, caller.project.id, query.page ?? 1, query.pageSize ?? 20), {
      query: PageQuery,
      response: { 200: t.Object({ workflows: t.Array(WorkflowSchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }), ...authErrors },
      detail: { summary: "A page of the project's workflows, newest first", tags },
    })
    .post(
      '',
      ({ body, caller, set }) => {
        set.status = 201
        return write((trx, at) => workflows.createWorkflow(trx, caller.project.id, body, deps.config.secret, at))
      },
      { body: NewWorkflow, response: { 201: CreatedWorkflowSchema, ...errors }, detail: { summary: 'Create a workflow (disabled unless enabled is given); its signing secret is shown this once', tags } },
    )
    .get('/:id', ({ params, caller }) => workflows.getWorkflow(deps.db, caller.project.id, params.id), {
      params: IdParams,
      response: { 200: WorkflowSchema, ...errors },
      detail: { summary: 'Get a workflow with its steps', tags },
    })
    .patch('/:id', ({ params, body, caller }) => write((trx, at) => workflows.updateWorkflow(trx, caller.project.id, params.id, body, at)), {
      params: IdParams,
      body: WorkflowChanges,
      response: { 200: WorkflowSchema, ...errors },
      detail: { summary: 'Change a workflow (the fields given); steps replaces the whole graph', tags },
    })
    .delete('/:id', ({ params, caller }) => write((trx) => workflows.deleteWorkflow(trx, caller.project.id, params.id)), {
      params: IdParams,
      response: { 200: t.Object({ id: t.String(), success: t.Boolean(), message: t.String() }), ...errors },
      detail: { summary: 'Delete a workflow and its runs', tags },
    })
    .post(
      '/:id/steps',
      ({ params, body, caller }) => write((trx, at) => workflows.editSteps(trx, caller.project.id, params.id, (steps) => insertStep(steps, body.step, { after: body.after, exit: body.exit }), at)),
      {
        params: IdParams,
        body: strictObject({
          step: StepInput,
          after: t.Optional(t.String({ description: 'The step the new one follows; absent: the new step becomes the entry and leads to the old one' })),
          exit: t.Optional(ExitField),
        }),
        response: { 200: WorkflowSchema, ...errors },
        detail: { summary: 'Insert a step: it takes over where the exit it is put on led', tags },
      },
    )
    .patch(
      '/:id/steps/:stepId',
      ({ params, body, caller }) => write((trx, at) => workflows.editSteps(trx, caller.project.id, params.id, (steps) => patchStep(steps, params.stepId, needsChanges(body)), at)),
      { params: StepParams, body: StepChanges, response: { 200: WorkflowSchema, ...errors }, detail: { summary: "Change a step's config and/or where its exits lead", tags } },
    )
    .delete(
      '/:id/steps/:stepId',
      ({ params, caller }) => write((trx, at) => workflows.editSteps(trx, caller.project.id, params.id, (steps) => deleteStep(steps, params.stepId), at)),
      { params: StepParams, response: { 200: WorkflowSchema, ...errors }, detail: { summary: 'Remove a step: the exits that led to it lead where it led', tags } },
    )
    .get('/:id/executions', ({ params, query, caller }) => executions.listExecutions(deps.db, caller.project.id, params.id, query.page ?? 1, query.pageSize ?? 20), {
      params: IdParams,
      query: PageQuery,
      response: { 200: t.Object({ executions: t.Array(ExecutionSchema), page: t.Integer(), pageSize: t.Integer(), total: t.Integer() }), ...errors },
      detail: { summary: "A page of the workflow's runs, newest first", tags },
    })
    .get('/:id/executions/:executionId', ({ params, caller }) => executions.getExecution(deps.db, caller.project.id, params.id, params.executionId), {
      params: t.Object({ id: t.String(), executionId: t.String() }),
      response: { 200: ExecutionSchema, ...errors },
      detail: { summary: 'A run, with what each of its steps did', tags },
    })
    .post('/:id/cancel-all', ({ params, caller }) => write((trx, at) => executions.cancelAllExecutions(trx, caller.project.id, params.id, at)), {
      params: IdParams,
      response: { 200: t.Object({ cancelled: t.Integer() }), ...errors },
      detail: { summary: 'Cancel every run of the workflow that is running or waiting', tags },
    })
    .post(
      '/:id/trigger',
      async ({ params, body, caller }) => {
        return write((trx, at) => executions.triggerWorkflow(trx, caller.project.id, params.id, needsContacts(body), at))
      },
      {
        params: IdParams,
        body: Contacts,
        response: { 200: t.Object({ entered: t.Integer(), skipped: t.Integer({ description: 'Already running it, or not allowed to run it again' }) }), ...errors },
        detail: { summary: 'Start an enabled MANUAL workflow for contacts, by id or email', tags },
      },
    )
}
