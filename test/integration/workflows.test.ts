// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { signingSecretOf } from '../../src/core/workflows/workflows.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { ManualClock } from '../helpers/clock.ts'

let t: TestApp
let project: { id: number; secretKey: string; publicKey: string }
let templateId: string
let trackedSegment: string
let plainSegment: string
const clock = new ManualClock()
const SECRET = 'test-secret-test-secret-test-secret'

const call = (method: string, path: string, body?: unknown, key = project.secretKey) => t.request(method, path, { key, body })
const iso = () => new Date(clock.now()).toISOString()
const plan = (value: string) => ({ logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value }] }] })

const delay = (id: string, next: string | null = null) => ({ id, type: 'DELAY', config: { amount: 1, unit: 'days' }, next })
const send = (id: string, next: string | null = null, from = 'news@example.com') => ({ id, type: 'SEND_EMAIL', config: { subject: 'Hi', body: '<p>Hi</p>', from }, next })
const exit = (id: string) => ({ id, type: 'EXIT' })
const branch = (id: string, yes: string | null, no: string | null) => ({ id, type: 'CONDITION', config: { condition: plan('pro') }, yes, no })
const GRAPH = [delay('wait', 'check'), branch('check', 'mail', null), send('mail', 'done'), exit('done')]

async function workflow(body: Record<string, unknown>, key = project.secretKey) {
  const response = await call('POST', '/workflows', { name: 'Onboarding', triggerType: 'MANUAL', ...body }, key)
  expect(response.status).toBe(201)
  return response.body
}

/** The stored row: what the engine reads (next tick, sealed secret). */
const row = (id: string) => t.app.db.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

beforeAll(async () => {
  t = await createTestApp({}, { clock })
  project = await t.project()
  const domain = await call('POST', '/api/v1/domains', { name: 'example.com', region: 'us-east-1' })
  // Verification by DNS is not what these tests are about: the domain is marked verified directly.
  await t.app.db.updateTable('domains').set({ status: 'SUCCESS' }).where('id', '=', domain.body.id).execute()
  await call('POST', '/api/v1/domains', { name: 'unverified.com', region: 'us-east-1' })
  templateId = (await call('POST', '/templates', { name: 'Welcome', subject: 'Welcome', body: '<p>Hi</p>' })).body.id
  trackedSegment = (await call('POST', '/segments', { name: 'Pros', condition: plan('pro'), trackMembership: true })).body.id
  plainSegment = (await call('POST', '/segments', { name: 'Free', condition: plan('free') })).body.id
})

afterAll(() => t.close())

describe('workflows: create, read, update, delete', () => {
  test('a new workflow is disabled, has no steps, and shows its signing secret this once', async () => {
    const created = await workflow({ name: ' Welcome series ' })
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Welcome series',
      description: null,
      enabled: false,
      triggerType: 'MANUAL',
      triggerConfig: {},
      allowReentry: false,
      projectId: String(project.id),
      steps: [],
      createdAt: iso(),
      updatedAt: iso(),
      signingSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    })
    const { signingSecret, ...shown } = created
    expect((await call('GET', `/workflows/${created.id}`)).body).toEqual(shown)
    expect((await call('GET', '/workflows?pageSize=100')).body.workflows).toContainEqual(shown)
    expect(JSON.stringify((await call('PATCH', `/workflows/${created.id}`, { name: 'Renamed' })).body)).not.toContain(signingSecret)
    const stored = await row(created.id)
    expect(stored.signing_secret).not.toContain(signingSecret)
    expect(signingSecretOf(SECRET, stored)).toBe(signingSecret)
  })

  test('two workflows get different secrets', async () => {
    expect((await workflow({})).signingSecret).not.toBe((await workflow({})).signingSecret)
  })

  test('PATCH changes the fields given; DELETE removes it', async () => {
    const created = await workflow({ description: 'First', steps: GRAPH })
    clock.advance(1000)
    const patched = await call('PATCH', `/workflows/${created.id}`, { name: 'Second', description: null, allowReentry: true, enabled: true })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ name: 'Second', description: null, allowReentry: true, enabled: true, steps: created.steps, createdAt: created.createdAt, updatedAt: iso() })
    expect((await call('PATCH', `/workflows/${created.id}`, { enabled: false })).body.enabled).toBe(false)
    const deleted = await call('DELETE', `/workflows/${created.id}`)
    expect(deleted.body).toEqual({ id: created.id, success: true, message: 'Workflow deleted' })
    expect((await call('GET', `/workflows/${created.id}`)).status).toBe(404)
  })

  test('steps sent at creation are checked and normalized: ids generated, every exit present', async () => {
    const created = await workflow({ enabled: true, steps: [{ type: 'DELAY', config: { amount: 2, unit: 'hours' }, next: 'step_2' }, { type: 'SEND_EMAIL', config: { templateId, from: 'Team <team@example.com>' } }] })
    expect(created.enabled).toBe(true)
    expect(created.steps).toEqual([
      { id: 'step_1', type: 'DELAY', config: { amount: 2, unit: 'hours' }, next: 'step_2' },
      { id: 'step_2', type: 'SEND_EMAIL', config: { templateId, from: 'Team <team@example.com>' }, next: null },
    ])
  })

  test('PATCH steps replaces the whole graph', async () => {
    const created = await workflow({ steps: GRAPH })
    const patched = await call('PATCH', `/workflows/${created.id}`, { steps: [exit('only')] })
    expect(patched.body.steps).toEqual([{ id: 'only', type: 'EXIT', config: {} }])
  })

  test.each([
    ['enabled without steps', { enabled: true }, 'enabled'],
    ['no name', { name: '' }, 'name'],
    ['an unknown trigger type', { triggerType: 'WEBHOOK' }, 'triggerType'],
    ['an unknown field', { color: 'red' }, 'color'],
    ['a MANUAL trigger with a config', { triggerConfig: { eventName: 'x' } }, 'triggerConfig.eventName'],
    ['an EVENT trigger without a config', { triggerType: 'EVENT' }, 'triggerConfig'],
  ])('%s is a 422 naming %s', async (_, body, field) => {
    const response = await call('POST', '/workflows', { name: 'Bad', triggerType: 'MANUAL', ...body })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe(field)
  })

  test('an unknown trigger type is named with the ones there are', async () => {
    const response = await call('POST', '/workflows', { name: 'Bad', triggerType: 'WEBHOOK' })
    expect(response.body.errors[0]).toMatchObject({ field: 'triggerType', message: 'Choose one of these for trigger type: EVENT, MANUAL, SCHEDULE.' })
  })

  test('a workflow without steps cannot be enabled', async () => {
    const created = await workflow({})
    const response = await call('PATCH', `/workflows/${created.id}`, { enabled: true })
    expect(response.status).toBe(422)
    expect(response.body.errors[0]).toMatchObject({ field: 'enabled', message: 'A workflow without steps cannot be enabled; add steps first.' })
  })

  test('a new trigger type needs its own config; the old one is not carried over', async () => {
    const created = await workflow({ triggerType: 'EVENT', triggerConfig: { eventName: 'signup' } })
    const refused = await call('PATCH', `/workflows/${created.id}`, { triggerType: 'SCHEDULE' })
    expect(refused.status).toBe(422)
    expect(refused.body.errors[0].field).toBe('triggerConfig')
    const manual = await call('PATCH', `/workflows/${created.id}`, { triggerType: 'MANUAL' })
    expect(manual.body).toMatchObject({ triggerType: 'MANUAL', triggerConfig: {} })
  })
})

describe('workflows: graphs that are refused, with the path and the step named', () => {
  test.each([
    ['a transition to a missing step', [delay('start', 'remind'), send('remind', 'nope')], 'steps[1].next', "Step 'remind': goes to 'nope', which is not a step"],
    ['an unreachable step', [delay('a'), exit('lost')], 'steps[1]', "Step 'lost': cannot be reached from the entry step 'a'"],
    ['a loop with no way to end', [delay('a', 'b'), delay('b', 'a')], 'steps[0]', "Step 'a': no EXIT step or open exit can be reached from it"],
    ['a loop that never waits', [send('mail', 'check'), branch('check', 'mail', null)], 'steps[0]', 'without a DELAY or WAIT_FOR_EVENT step'],
    ['an unknown step type', [{ id: 'sms', type: 'SMS', config: {} }], 'steps[0].type', "Step 'sms': must be one of SEND_EMAIL"],
    ['a bad config', [{ id: 'pause', type: 'DELAY', config: { amount: 2, unit: 'fortnights' } }], 'steps[0].config.unit', "Step 'pause': must be one of minutes"],
    ['a delay over a year', [{ id: 'pause', type: 'DELAY', config: { amount: 400, unit: 'days' } }], 'steps[0].config.amount', 'at most a year'],
    ['duplicate ids', [delay('a', 'b'), exit('a'), exit('b')], 'steps[1].id', "Step 'a': steps[0] has this id already"],
    ['an exit of another type', [{ ...exit('e'), next: null }], 'steps[0].next', 'has no exits'],
    ['a sender that is not an address', [send('mail', null, 'nobody')], 'steps[0].config.from', 'must be `address` or `Name <address>`'],
    ['a webhook to ftp', [{ id: 'hook', type: 'WEBHOOK', config: { url: 'ftp://example.com' } }], 'steps[0].config.url', 'http:// or https://'],
    ['more than 100 steps', Array.from({ length: 101 }, (_, i) => delay(`s${i}`, i < 100 ? `s${i + 1}` : null)), 'steps', 'at most 100'],
  ])('%s', async (_, steps, field, message) => {
    const response = await call('POST', '/workflows', { name: 'Bad', triggerType: 'MANUAL', steps })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe(field)
    expect(response.body.errors[0].message).toContain(message)
  })

  test('a refused PATCH changes nothing', async () => {
    const created = await workflow({ steps: GRAPH })
    const response = await call('PATCH', `/workflows/${created.id}`, { name: 'Changed', steps: [delay('a', 'nope')] })
    expect(response.status).toBe(422)
    expect((await call('GET', `/workflows/${created.id}`)).body).toMatchObject({ name: 'Onboarding', steps: created.steps })
  })
})

describe('workflows: what the graph and trigger name must be in the project', () => {
  test.each([
    ['a sender on an unverified domain', { steps: [send('mail', null, 'news@unverified.com')] }, 'steps[0].config.from', "Step 'mail': The sender domain unverified.com is not a verified domain"],
    ['a sender on an unknown domain', { steps: [send('mail', null, 'Jane <jane@elsewhere.org>')] }, 'steps[0].config.from', 'elsewhere.org'],
    ['a template that does not exist', { steps: [{ id: 'mail', type: 'SEND_EMAIL', config: { templateId: 'nope', from: 'a@example.com' } }] }, 'steps[0].config.templateId', 'no template nope'],
    ['a condition naming an unknown segment', { steps: [{ id: 'c', type: 'CONDITION', config: { condition: { logic: 'AND', groups: [{ filters: [{ field: 'segment.nope', operator: 'memberOfSegment' }] }] } } }] }, 'steps[0].config.condition.groups[0].filters[0].field', 'no segment nope'],
    ['a wait for the entry of an unknown segment', { steps: [{ id: 'w', type: 'WAIT_FOR_EVENT', config: { eventName: 'segment.nope.entry', timeoutSeconds: 60 } }] }, 'steps[0].config.eventName', 'no segment nope'],
    ['a SCHEDULE on an unknown segment', { triggerType: 'SCHEDULE', triggerConfig: { cron: '0 9 * * *', timezone: 'UTC', segmentId: 'nope' } }, 'triggerConfig.segmentId', 'no segment nope'],
    ['an EVENT on an unknown segment', { triggerType: 'EVENT', triggerConfig: { eventName: 'segment.nope.exit' } }, 'triggerConfig.eventName', 'no segment nope'],
    ['an EVENT condition naming an unknown segment', { triggerType: 'EVENT', triggerConfig: { eventName: 'signup', condition: { logic: 'AND', groups: [{ filters: [{ field: 'segment', operator: 'memberOfSegment', value: 'nope' }] }] } } }, 'triggerConfig.condition.groups[0].filters[0].field', 'no segment nope'],
  ])('%s is a 422 naming the path', async (_, body, field, message) => {
    const response = await call('POST', '/workflows', { name: 'Bad', triggerType: 'MANUAL', ...body })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe(field)
    expect(response.body.errors[0].message).toContain(message)
  })

  test('an EVENT on a segment that does not track its membership is refused: it records no entries', async () => {
    const response = await call('POST', '/workflows', { name: 'Bad', triggerType: 'EVENT', triggerConfig: { eventName: `segment.${plainSegment}.entry` } })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].message).toContain('does not track its membership')
    expect((await workflow({ triggerType: 'EVENT', triggerConfig: { eventName: `segment.${trackedSegment}.entry` } })).triggerConfig).toEqual({ eventName: `segment.${trackedSegment}.entry` })
  })

  test("another project's template and segment are not this project's", async () => {
    const other = await t.project('Other')
    const response = await call('POST', '/workflows', { name: 'Bad', triggerType: 'SCHEDULE', triggerConfig: { cron: '0 9 * * *', segmentId: trackedSegment } }, other.secretKey)
    expect(response.body.errors[0].field).toBe('triggerConfig.segmentId')
  })
})

describe('workflows: SCHEDULE triggers', () => {
  test.each([
    ['a cron that never fires', { cron: '0 0 30 2 *', timezone: 'UTC' }, 'triggerConfig.cron', 'never fires'],
    ['a cron that fires every second', { cron: '* * * * * *', timezone: 'UTC' }, 'triggerConfig.cron', 'more often than once a minute'],
    ['a cron that is not one', { cron: 'every monday', timezone: 'UTC' }, 'triggerConfig.cron', 'is not a cron expression'],
    ['a time zone that does not exist', { cron: '0 9 * * *', timezone: 'Europe/Atlantis' }, 'triggerConfig.timezone', 'There is no time zone Europe/Atlantis'],
  ])('%s is a 422', async (_, triggerConfig, field, message) => {
    const response = await call('POST', '/workflows', { name: 'Bad', triggerType: 'SCHEDULE', triggerConfig })
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe(field)
    expect(response.body.errors[0].message).toContain(message)
  })

  test('the next tick is kept while enabled, follows trigger changes, and is cleared when disabled', async () => {
    const created = await workflow({ triggerType: 'SCHEDULE', triggerConfig: { cron: '0 9 * * *', timezone: 'Europe/Paris' }, steps: GRAPH })
    expect((await row(created.id)).next_tick_at).toBeNull()
    await call('PATCH', `/workflows/${created.id}`, { enabled: true })
    expect(new Date((await row(created.id)).next_tick_at!).toISOString()).toBe('2026-11-02T08:00:00.000Z')
    await call('PATCH', `/workflows/${created.id}`, { triggerConfig: { cron: '30 12 * * *', timezone: 'UTC' } })
    expect(new Date((await row(created.id)).next_tick_at!).toISOString()).toBe('2026-11-01T12:30:00.000Z')
    await call('PATCH', `/workflows/${created.id}`, { name: 'Renamed' })
    expect(new Date((await row(created.id)).next_tick_at!).toISOString()).toBe('2026-11-01T12:30:00.000Z')
    await call('PATCH', `/workflows/${created.id}`, { enabled: false })
    expect((await row(created.id)).next_tick_at).toBeNull()
    await call('PATCH', `/workflows/${created.id}`, { enabled: true, triggerType: 'MANUAL' })
    expect((await row(created.id)).next_tick_at).toBeNull()
  })

  test('a schedule created enabled has its next tick at once, its time zone spelled canonically', async () => {
    const created = await workflow({ enabled: true, steps: GRAPH, triggerType: 'SCHEDULE', triggerConfig: { cron: '0 9 * * 1', timezone: 'america/new_york', segmentId: trackedSegment } })
    expect(created.triggerConfig).toEqual({ cron: '0 9 * * 1', timezone: 'America/New_York', segmentId: trackedSegment })
    expect(new Date((await row(created.id)).next_tick_at!).toISOString()).toBe('2026-11-02T14:00:00.000Z')
  })
})

describe('workflows: editing one step at a time', () => {
  let id: string
  beforeAll(async () => {
    id = (await workflow({ steps: GRAPH })).id
  })
  const ids = async () => (await call('GET', `/workflows/${id}`)).body.steps.map((s: any) => s.id)

  test('a step inserted after another takes over where its exit went', async () => {
    const response = await call('POST', `/workflows/${id}/steps`, { step: { id: 'pause', type: 'DELAY', config: { amount: 3, unit: 'hours' } }, after: 'mail' })
    expect(response.status).toBe(200)
    expect(response.body.steps.find((s: any) => s.id === 'mail').next).toBe('pause')
    expect(response.body.steps.find((s: any) => s.id === 'pause')).toEqual({ id: 'pause', type: 'DELAY', config: { amount: 3, unit: 'hours' }, next: 'done' })
  })

  test('on a named exit, and without after as the new entry', async () => {
    const onNo = await call('POST', `/workflows/${id}/steps`, { step: { id: 'tag', type: 'UPDATE_CONTACT', config: { data: { nurtured: true } } }, after: 'check', exit: 'no' })
    expect(onNo.body.steps.find((s: any) => s.id === 'check')).toMatchObject({ yes: 'mail', no: 'tag' })
    const first = await call('POST', `/workflows/${id}/steps`, { step: { type: 'UPDATE_CONTACT', config: { subscribed: true } } })
    expect(first.body.steps[0]).toMatchObject({ id: expect.stringMatching(/^step_\d+$/), next: 'wait' })
  })

  test('a step is patched: its config replaced, its exits moved', async () => {
    const response = await call('PATCH', `/workflows/${id}/steps/wait`, { config: { amount: 2, unit: 'weeks' } })
    expect(response.body.steps.find((s: any) => s.id === 'wait')).toEqual({ id: 'wait', type: 'DELAY', config: { amount: 2, unit: 'weeks' }, next: 'check' })
  })

  test('a step is deleted and the graph closes over it', async () => {
    const response = await call('DELETE', `/workflows/${id}/steps/pause`)
    expect(response.status).toBe(200)
    expect(response.body.steps.find((s: any) => s.id === 'mail').next).toBe('done')
    expect(await ids()).not.toContain('pause')
  })

  test.each([
    ['an insert whose config is bad', 'POST', 'steps', { step: { id: 'x', type: 'DELAY', config: { amount: 0, unit: 'days' } }, after: 'mail' }, 422, 'config.amount'],
    ['an insert after a missing step', 'POST', 'steps', { step: { type: 'EXIT' }, after: 'nope' }, 422, 'after'],
    ['an insert on an exit the step lacks', 'POST', 'steps', { step: { type: 'EXIT' }, after: 'wait', exit: 'yes' }, 422, 'exit'],
    ['an insert with an id taken', 'POST', 'steps', { step: { id: 'mail', type: 'EXIT' }, after: 'check', exit: 'no' }, 422, '.id'],
    ['an insert after an EXIT step', 'POST', 'steps', { step: { type: 'EXIT' }, after: 'done' }, 422, 'after'],
    ['an EXIT inserted mid-way that cuts off the rest', 'POST', 'steps', { step: { id: 'stop', type: 'EXIT' }, after: 'wait' }, 422, 'steps['],
    ['a patch to a missing target', 'PATCH', 'steps/mail', { next: 'nope' }, 422, 'next'],
    ['a patch of an exit the step lacks', 'PATCH', 'steps/mail', { yes: null }, 422, 'yes'],
    ['a patch that changes nothing', 'PATCH', 'steps/mail', {}, 422, 'body'],
    ['a patch of a missing step', 'PATCH', 'steps/nope', { next: null }, 404, undefined],
    ['deleting a missing step', 'DELETE', 'steps/nope', undefined, 404, undefined],
    ['deleting a step that branches two ways', 'DELETE', 'steps/check', undefined, 409, undefined],
  ])('%s is refused and changes nothing', async (_, method, path, body, status, field) => {
    const before = (await call('GET', `/workflows/${id}`)).body
    const response = await call(method, `/workflows/${id}/${path}`, body)
    expect(response.status).toBe(status)
    if (field) expect(response.body.errors[0].field).toContain(field)
    expect((await call('GET', `/workflows/${id}`)).body).toEqual(before)
  })

  test('the last step of an enabled workflow cannot be deleted', async () => {
    const created = await workflow({ enabled: true, steps: [exit('only')] })
    const response = await call('DELETE', `/workflows/${created.id}/steps/only`)
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe('steps')
    await call('PATCH', `/workflows/${created.id}`, { enabled: false })
    expect((await call('DELETE', `/workflows/${created.id}/steps/only`)).body.steps).toEqual([])
  })

  test('steps are built up from an empty workflow', async () => {
    const created = await workflow({})
    const response = await call('POST', `/workflows/${created.id}/steps`, { step: { id: 'hello', type: 'SEND_EMAIL', config: { templateId, from: 'a@example.com' } } })
    expect(response.body.steps).toEqual([{ id: 'hello', type: 'SEND_EMAIL', config: { templateId, from: 'a@example.com' }, next: null }])
  })
})

describe('workflows: runs', () => {
  let id: string
  let contacts: Array<{ id: string; email: string }>
  beforeAll(async () => {
    id = (await workflow({ enabled: true, steps: GRAPH })).id
    contacts = await Promise.all(['run-a@example.com', 'run-b@example.com', 'run-c@example.com'].map(async (email) => (await call('POST', '/contacts', { email })).body))
  })

  test('a MANUAL workflow is started for contacts by id and by email, each once', async () => {
    const response = await call('POST', `/workflows/${id}/trigger`, { contactIds: [contacts[0]!.id], emails: ['RUN-A@example.com', 'run-b@example.com'] })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ entered: 2, skipped: 0 })
    expect((await call('POST', `/workflows/${id}/trigger`, { contactIds: [contacts[0]!.id] })).body).toEqual({ entered: 0, skipped: 1 })
  })

  test('its runs are listed, newest first, and each shown with its history', async () => {
    const list = await call('GET', `/workflows/${id}/executions`)
    expect(list.body).toMatchObject({ page: 1, pageSize: 20, total: 2 })
    const run = list.body.executions[0]
    expect(run).toEqual({
      id: expect.any(String),
      workflowId: id,
      contactId: expect.any(String),
      state: 'RUNNING',
      currentStep: 'wait',
      nextRunAt: iso(),
      trigger: { name: 'manual', data: null, at: iso() },
      error: null,
      createdAt: iso(),
      updatedAt: iso(),
      finishedAt: null,
    })
    expect((await call('GET', `/workflows/${id}/executions/${run.id}`)).body).toEqual({ ...run, history: [] })
    expect((await call('GET', `/workflows/${id}/executions?page=2&pageSize=1`)).body.executions).toHaveLength(1)
  })

  test('a step that runs are at cannot be removed until they are cancelled', async () => {
    const refused = await call('DELETE', `/workflows/${id}/steps/wait`)
    expect(refused.status).toBe(409)
    expect(refused.body.message).toBe("2 runs of this workflow are at step 'wait', which this change removes")
    clock.advance(1000)
    const cancelled = await call('POST', `/workflows/${id}/cancel-all`)
    expect(cancelled.body).toEqual({ cancelled: 2 })
    const run = (await call('GET', `/workflows/${id}/executions`)).body.executions[0]
    const shown = (await call('GET', `/workflows/${id}/executions/${run.id}`)).body
    expect(shown).toMatchObject({ state: 'CANCELLED', finishedAt: iso(), nextRunAt: null, history: [{ stepId: 'wait', type: 'DELAY', outcome: 'cancelled', detail: null, at: iso() }] })
    expect((await call('POST', `/workflows/${id}/cancel-all`)).body).toEqual({ cancelled: 0 })
    expect((await call('DELETE', `/workflows/${id}/steps/wait`)).status).toBe(200)
  })

  test.each([
    ['no contacts', {}, 'body'],
    ['an unknown contact id', { contactIds: ['0190f0d8-0000-7000-8000-000000000000'] }, 'contactIds[0]'],
    ['an email that is no contact', { emails: ['run-c@example.com', 'nobody@example.com'] }, 'emails[1]'],
    ['an email that is no address', { emails: ['not an email'] }, 'emails[0]'],
  ])('%s is a 422 naming it, and nobody enters', async (_, body, field) => {
    const before = (await call('GET', `/workflows/${id}/executions`)).body.total
    const response = await call('POST', `/workflows/${id}/trigger`, body)
    expect(response.status).toBe(422)
    expect(response.body.errors[0].field).toBe(field)
    expect((await call('GET', `/workflows/${id}/executions`)).body.total).toBe(before)
  })

  test('a workflow that is not MANUAL, or is disabled, is not started by hand (409)', async () => {
    const event = await workflow({ enabled: true, steps: GRAPH, triggerType: 'EVENT', triggerConfig: { eventName: 'signup' } })
    expect((await call('POST', `/workflows/${event.id}/trigger`, { contactIds: [contacts[2]!.id] })).status).toBe(409)
    const disabled = await workflow({ steps: GRAPH })
    const response = await call('POST', `/workflows/${disabled.id}/trigger`, { contactIds: [contacts[2]!.id] })
    expect(response.status).toBe(409)
    expect(response.body.message).toBe('This workflow is disabled')
  })
})

describe('workflows: keys, projects and pages', () => {
  test.each([
    ['GET', ''],
    ['PATCH', ''],
    ['DELETE', ''],
    ['POST', '/steps'],
    ['GET', '/executions'],
    ['GET', '/executions/0190f0d8-0000-7000-8000-000000000000'],
    ['POST', '/cancel-all'],
  ])('%s /workflows/{id}%s of an unknown workflow is a 404', async (method, suffix) => {
    const body = method === 'PATCH' ? { name: 'x' } : method === 'POST' && suffix === '/steps' ? { step: { type: 'EXIT' } } : undefined
    const response = await call(method, `/workflows/0190f0d8-0000-7000-8000-000000000000${suffix}`, body)
    expect(response.status).toBe(404)
  })

  test("another project's workflow and an unknown run are 404s", async () => {
    const created = await workflow({})
    const other = await t.project('Elsewhere')
    expect((await call('GET', `/workflows/${created.id}`, undefined, other.secretKey)).status).toBe(404)
    expect((await call('DELETE', `/workflows/${created.id}`, undefined, other.secretKey)).status).toBe(404)
    expect((await call('GET', `/workflows/${created.id}/executions/nope`)).status).toBe(404)
  })

  test('a public key is refused (403), no key is a 401', async () => {
    expect((await call('GET', '/workflows', undefined, project.publicKey)).status).toBe(403)
    expect((await call('POST', '/workflows', { name: 'x', triggerType: 'MANUAL' }, project.publicKey)).status).toBe(403)
    expect((await t.request('GET', '/workflows')).status).toBe(401)
  })

  test('the list is paged: 20 by default, newest first, with the total', async () => {
    const paging = await t.project('Paging')
    for (let i = 0; i < 23; i++) await workflow({ name: `W${i}` }, paging.secretKey)
    const page = (query: string) => t.request('GET', `/workflows${query}`, { key: paging.secretKey })
    const first = await page('')
    expect(first.body).toMatchObject({ page: 1, pageSize: 20, total: 23 })
    expect(first.body.workflows).toHaveLength(20)
    expect(first.body.workflows[0].name).toBe('W22')
    expect((await page('?page=2')).body.workflows.map((w: any) => w.name)).toEqual(['W2', 'W1', 'W0'])
    expect((await page('?pageSize=100')).body.workflows).toHaveLength(23)
    for (const query of ['?pageSize=101', '?page=0', '?page=x']) expect((await page(query)).status).toBe(422)
  })
})
