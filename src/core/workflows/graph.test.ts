import { describe, expect, test } from 'bun:test'
import { AppError } from '../../lib/errors.ts'
import { checkSteps, MAX_STEPS } from './graph.ts'

const delay = (id: string, next: string | null = null) => ({ id, type: 'DELAY', config: { amount: 1, unit: 'days' }, next })
const send = (id: string, next: string | null = null) => ({ id, type: 'SEND_EMAIL', config: { subject: 'Hi', body: '<p>Hi</p>', from: 'news@example.com' }, next })
const update = (id: string, next: string | null = null) => ({ id, type: 'UPDATE_CONTACT', config: { subscribed: true }, next })
const exit = (id: string) => ({ id, type: 'EXIT' })
const condition = { logic: 'AND' as const, groups: [{ filters: [{ field: 'data.plan', operator: 'equals' as const, value: 'pro' }] }] }
const branch = (id: string, yes: string | null, no: string | null) => ({ id, type: 'CONDITION', config: { condition }, yes, no })
const wait = (id: string, onEvent: string | null, onTimeout: string | null) => ({ id, type: 'WAIT_FOR_EVENT', config: { eventName: 'email.opened', timeoutSeconds: 3600 }, onEvent, onTimeout })

function refusal(input: unknown): { field: string; message: string } {
  try {
    checkSteps(input)
  } catch (error) {
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).status).toBe(422)
    return (error as AppError).details.errors![0]!
  }
  throw new Error('accepted')
}

describe('checkSteps accepts a graph and normalizes it', () => {
  test('every exit of a step is present, null where the run ends', () => {
    expect(checkSteps([{ id: 'a', type: 'CONDITION', config: { condition }, yes: 'b' }, exit('b')])).toEqual([
      { id: 'a', type: 'CONDITION', config: { condition }, yes: 'b', no: null },
      { id: 'b', type: 'EXIT', config: {} },
    ])
  })

  test('steps without an id are step_<position>, and transitions may name those ids', () => {
    const steps = checkSteps([
      { type: 'DELAY', config: { amount: 2, unit: 'hours' }, next: 'step_2' },
      { type: 'SEND_EMAIL', config: { templateId: 't1', from: 'Jane <jane@example.com>' } },
    ])
    expect(steps.map((s) => s.id)).toEqual(['step_1', 'step_2'])
    expect(steps[0]).toMatchObject({ next: 'step_2' })
  })

  test('a loop that waits and has a way out is a graph like any other', () => {
    const steps = checkSteps([send('remind', 'wait'), wait('wait', null, 'count'), branch('count', 'remind', null)])
    expect(steps).toHaveLength(3)
  })

  test('branches may meet again at a shared step', () => {
    expect(checkSteps([branch('c', 'a', 'b'), send('a', 'end'), delay('b', 'end'), exit('end')])).toHaveLength(4)
  })

  test(`${MAX_STEPS} steps in a line are allowed`, () => {
    const steps = Array.from({ length: MAX_STEPS }, (_, i) => delay(`s${i}`, i + 1 < MAX_STEPS ? `s${i + 1}` : null))
    expect(checkSteps(steps)).toHaveLength(MAX_STEPS)
  })
})

describe('checkSteps refuses with a 422 naming the path and the step', () => {
  test.each([
    ['not a list', { a: 1 }, 'steps', 'must be a list'],
    ['an empty list', [], 'steps', 'at least one step'],
    ['too many steps', Array.from({ length: MAX_STEPS + 1 }, (_, i) => delay(`s${i}`)), 'steps', `at most ${MAX_STEPS}`],
    ['a step that is not an object', [7], 'steps[0]', 'must be a step'],
    ['an unknown type', [{ id: 'x', type: 'SMS', config: {} }], 'steps[0].type', "step 'x': must be one of SEND_EMAIL"],
    ['a missing type', [{ id: 'x', config: {} }], 'steps[0].type', 'must be one of'],
    ['an id with a space', [{ ...exit('a b') }], 'steps[0].id', '1 to 64 letters'],
    ['an id of 65 characters', [exit('a'.repeat(65))], 'steps[0].id', '1 to 64 letters'],
    ['an id that is a number', [{ id: 7, type: 'EXIT' }], 'steps[0].id', '1 to 64 letters'],
    ['a duplicate id', [delay('a', 'b'), exit('b'), exit('a')], 'steps[2].id', "step 'a': steps[0] has this id already"],
    ['a generated id that is taken', [delay('step_2', null), { type: 'EXIT' }], 'steps[1].id', "the id it would be given is taken by steps[0]"],
    ['an unknown key', [{ ...exit('a'), color: 'red' }], 'steps[0].color', "step 'a': is not part of a step"],
    ['next on a CONDITION', [{ ...branch('c', null, null), next: null }], 'steps[0].next', 'goes on by yes and no, not next'],
    ['next on an EXIT', [{ ...exit('e'), next: null }], 'steps[0].next', 'has no exits'],
    ['yes on a DELAY', [{ ...delay('d'), yes: null }], 'steps[0].yes', 'goes on by next, not yes'],
    ['a transition that is not a string', [{ ...delay('d'), next: 3 }], 'steps[0].next', 'the id of a step, or null'],
  ])('%s', (_, input, field, message) => {
    const found = refusal(input)
    expect(found.field).toBe(field)
    expect(found.message).toContain(message)
  })

  test('a transition to a step that does not exist names the exit and its target', () => {
    expect(refusal([delay('start', 'remind'), send('remind', 'nope')])).toEqual({ field: 'steps[1].next', message: "step 'remind': goes to 'nope', which is not a step" })
    expect(refusal([branch('c', 'gone', null)])).toEqual({ field: 'steps[0].yes', message: "step 'c': goes to 'gone', which is not a step" })
  })

  test('a step that cannot be reached from the entry is refused', () => {
    expect(refusal([delay('a', null), exit('lost')])).toEqual({ field: 'steps[1]', message: "step 'lost': cannot be reached from the entry step 'a'" })
  })

  test('steps listed without transitions do not run one after another: the second is unreachable', () => {
    expect(refusal([{ type: 'DELAY', config: { amount: 1, unit: 'days' } }, { type: 'EXIT' }]).field).toBe('steps[1]')
  })

  test('a loop with no way out is refused at its first step', () => {
    const found = refusal([delay('a', 'b'), delay('b', 'c'), delay('c', 'b')])
    expect(found.field).toBe('steps[0]')
    expect(found.message).toBe("step 'a': no EXIT step or open exit can be reached from it, so a run that gets there would loop forever")
  })

  test('a step that goes to itself, with no other exit, is a loop with no way out', () => {
    expect(refusal([delay('a', 'a')]).message).toContain("step 'a': no EXIT step")
  })

  test('a branch whose both exits lead into a closed loop is refused', () => {
    expect(refusal([branch('c', 'a', 'b'), delay('a', 'b'), delay('b', 'a')]).field).toBe('steps[0]')
  })

  test('a loop that never waits is refused even with a way out: it would run round without pause', () => {
    const found = refusal([send('mail', 'check'), branch('check', 'mail', null)])
    expect(found.field).toBe('steps[0]')
    expect(found.message).toContain('without a DELAY or WAIT_FOR_EVENT step')
  })

  test('a bad config names its path under the step and the step', () => {
    expect(refusal([{ id: 'pause', type: 'DELAY', config: { amount: 0, unit: 'days' } }])).toEqual({
      field: 'steps[0].config.amount',
      message: "step 'pause': must be a whole number of at least 1",
    })
  })

  test('a bad condition names its node under the step', () => {
    const found = refusal([{ id: 'c', type: 'CONDITION', config: { condition: { logic: 'XOR', groups: [] } } }])
    expect(found).toEqual({ field: 'steps[0].config.condition.logic', message: "step 'c': must be AND or OR" })
  })

  test('the field may be named by the caller', () => {
    try {
      checkSteps([], 'graph')
    } catch (error) {
      expect((error as AppError).details.errors![0]!.field).toBe('graph')
    }
  })

  test('steps larger than 1 MiB as JSON are refused', () => {
    const big = Array.from({ length: 5 }, (_, i) => ({ ...send(`s${i}`, i < 4 ? `s${i + 1}` : null), config: { subject: 'Hi', body: 'x'.repeat(300_000), from: 'a@example.com' } }))
    expect(refusal(big).message).toContain('1 MiB')
  })

  test('update steps lead on like any other', () => {
    expect(checkSteps([update('u', 'e'), exit('e')])).toHaveLength(2)
  })
})
