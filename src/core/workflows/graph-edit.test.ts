import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { deleteStep, insertStep, patchStep } from './graph-edit.ts'
import { checkSteps } from './graph.ts'

const condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] }
const graph = checkSteps([
  { id: 'wait', type: 'DELAY', config: { amount: 1, unit: 'days' }, next: 'check' },
  { id: 'check', type: 'CONDITION', config: { condition }, yes: 'mail', no: null },
  { id: 'mail', type: 'SEND_EMAIL', config: { templateId: 't', from: 'a@example.com' }, next: 'done' },
  { id: 'done', type: 'EXIT' },
])
const delay = { type: 'DELAY', config: { amount: 2, unit: 'hours' } }

/** The graph as `id>target` per exit, in order: the shape an edit leaves. */
const shape = (steps: unknown[]) =>
  checkSteps(steps).map((step) => [step.id, ...Object.entries(step).filter(([key]) => !['id', 'type', 'config'].includes(key)).map(([key, to]) => `${key}>${to}`)].join(' '))

function thrown(edit: () => unknown): AppError {
  try {
    edit()
  } catch (error) {
    expect(error).toBeInstanceOf(AppError)
    return error as AppError
  }
  throw new Error('no error')
}

describe('insertStep', () => {
  test('after a step, the new step takes over where its exit went', () => {
    expect(shape(insertStep(graph, { id: 'pause', ...delay }, { after: 'mail' }))).toEqual([
      'wait next>check',
      'check yes>mail no>null',
      'mail next>pause',
      'pause next>done',
      'done',
    ])
  })

  test('on a named exit of a branching step', () => {
    expect(shape(insertStep(graph, { id: 'pause', ...delay }, { after: 'check', exit: 'no' }))).toContain('pause next>null')
    expect(shape(insertStep(graph, { id: 'pause', ...delay }, { after: 'check', exit: 'no' }))).toContain('check yes>mail no>pause')
  })

  test('without after, the new step becomes the entry and leads to the old one', () => {
    expect(shape(insertStep(graph, { id: 'first', ...delay }, {}))[0]).toBe('first next>wait')
  })

  test('into an empty workflow, the new step is the whole graph', () => {
    expect(shape(insertStep([], delay, {}))).toEqual(['step_1 next>null'])
  })

  test('a step without an id gets the first free step_<n>', () => {
    const steps = checkSteps([{ id: 'step_2', type: 'DELAY', config: { amount: 1, unit: 'days' } }])
    expect(insertStep(steps, delay, { after: 'step_2' })[1]).toMatchObject({ id: 'step_3' })
  })

  test('exits the new step names itself are kept, the others take over', () => {
    const inserted = insertStep(graph, { id: 'split', type: 'CONDITION', config: { condition }, no: null }, { after: 'wait' })
    expect(shape(inserted)).toContain('split yes>check no>null')
  })

  test('an EXIT step inserted mid-way cuts off what followed, and the check says so', () => {
    const inserted = insertStep(graph, { id: 'stop', type: 'EXIT' }, { after: 'mail' })
    expect(() => checkSteps(inserted)).toThrow("step 'done': cannot be reached")
  })

  test.each([
    [{ after: 'nope' }, 'after', "there is no step 'nope'"],
    [{ after: 'check' }, 'exit', 'goes on by yes and no'],
    [{ after: 'check', exit: 'next' }, 'exit', 'goes on by yes and no'],
    [{ after: 'done' }, 'after', 'is an EXIT step'],
    [{ exit: 'next' }, 'exit', 'goes with after'],
  ])('a placement %j is a 422 naming %s', (placement, field, message) => {
    const error = thrown(() => insertStep(graph, delay, placement))
    expect(error.status).toBe(422)
    expect(error.details.errors![0]!.field).toBe(field)
    expect(error.message).toContain(message)
  })
})

describe('patchStep', () => {
  test('changes the config and transitions given, and nothing else', () => {
    const patched = patchStep(graph, 'check', { no: 'done' })
    expect(shape(patched)).toContain('check yes>mail no>done')
    expect(patchStep(graph, 'wait', { config: { amount: 3, unit: 'weeks' } })[0]).toMatchObject({ id: 'wait', type: 'DELAY', config: { amount: 3, unit: 'weeks' }, next: 'check' })
  })

  test('a step that does not exist is a 404', () => {
    expect(thrown(() => patchStep(graph, 'nope', {})).status).toBe(404)
  })
})

describe('deleteStep', () => {
  test('the steps that led to it lead where it led', () => {
    expect(shape(deleteStep(graph, 'mail'))).toEqual(['wait next>check', 'check yes>done no>null', 'done'])
  })

  test('deleting the entry makes its successor the entry', () => {
    expect(shape(deleteStep(graph, 'wait'))[0]).toBe('check yes>mail no>null')
  })

  test('deleting an EXIT step ends the run where it was', () => {
    expect(shape(deleteStep(graph, 'done'))).toContain('mail next>null')
  })

  test('a branching step whose exits go different ways cannot be deleted (409)', () => {
    const error = thrown(() => deleteStep(graph, 'check'))
    expect(error.status).toBe(409)
    expect(error.message).toBe("Step 'check' branches (yes to 'mail', no to the end): the steps before it could go either way")
  })

  test('a branching step whose exits meet again can be deleted', () => {
    expect(shape(deleteStep(checkSteps(patchStep(graph, 'check', { no: 'mail' })), 'check'))).toEqual(['wait next>mail', 'mail next>done', 'done'])
  })

  test('deleting the only step leaves no steps', () => {
    expect(deleteStep(checkSteps([delay]), 'step_1')).toEqual([])
  })

  test('a step that does not exist is a 404', () => {
    expect(thrown(() => deleteStep(graph, 'nope')).status).toBe(404)
  })
})
