import { AppError, invalid } from '../../lib/errors.ts'
import { checkStepConfig } from './step-config.ts'
import { EXITS, targetsOf, type Step, type StepType } from './workflow.ts'

/*
 * A workflow's steps, checked as a whole: each step and its config, then the graph they make.
 * The first step is the entry; every step must be reachable from it, and from every step a run
 * must be able to end (at an EXIT step or an exit that goes nowhere). Pure, no database.
 */

export const MAX_STEPS = 100
const MAX_STEPS_BYTES = 1024 * 1024
const STEP_ID = /^[A-Za-z0-9_-]{1,64}$/
export const STEP_TYPES = Object.keys(EXITS) as StepType[]

/** Steps that hold a run until later: a loop through one of them waits between rounds. */
const WAITING: ReadonlySet<StepType> = new Set(['DELAY', 'WAIT_FOR_EVENT'])

const EVERY_EXIT = [...new Set(Object.values(EXITS).flat())]

/** The id a step is given when it comes without one: `step_<position>`, counted from 1. */
export const generatedId = (index: number) => `step_${index + 1}`

interface Located {
  step: Step
  path: string
  /** Whether the id was generated rather than given. */
  generated: boolean
}

/** The steps in `input`, checked and normalized (every exit present, null when it ends the run); a 422 naming the path and the step otherwise. */
export function checkSteps(input: unknown, field = 'steps'): Step[] {
  if (!Array.isArray(input)) throw invalid(field, 'must be a list of steps; the first is the entry')
  if (input.length === 0) throw invalid(field, 'needs at least one step')
  if (input.length > MAX_STEPS) throw invalid(field, `a workflow has at most ${MAX_STEPS} steps`)
  const located = input.map((raw, i) => checkStep(raw, i, `${field}[${i}]`))
  checkIds(located)
  checkTargets(located)
  checkReachable(located)
  checkCanEnd(located)
  checkLoopsWait(located)
  if (Buffer.byteLength(JSON.stringify(located.map((l) => l.step))) > MAX_STEPS_BYTES) throw invalid(field, 'the steps are larger than 1 MiB as JSON')
  return located.map((l) => l.step)
}

/** Runs `check`, naming the step in the message of a 422 it throws. */
function withinStep<T>(id: string, check: () => T): T {
  try {
    return check()
  } catch (error) {
    const finding = error instanceof AppError && error.status === 422 ? error.details.errors?.[0] : undefined
    if (!finding) throw error
    throw invalid(finding.field, `step '${id}': ${finding.message}`)
  }
}

function checkStep(raw: unknown, index: number, path: string): Located {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(path, 'must be a step {id?, type, config, next?}')
  const input = raw as Record<string, unknown>
  const generated = input.id === undefined || input.id === null
  const id = generated ? generatedId(index) : input.id
  if (typeof id !== 'string' || !STEP_ID.test(id)) throw invalid(`${path}.id`, 'must be 1 to 64 letters, digits, _ or -')
  const step = withinStep(id, () => {
    const type = input.type as StepType
    if (!STEP_TYPES.includes(type)) throw invalid(`${path}.type`, `must be one of ${STEP_TYPES.join(', ')}`)
    checkKeys(input, type, path)
    const checked: Record<string, unknown> = { id, type, config: checkStepConfig(type, input.config, `${path}.config`) }
    for (const exit of EXITS[type]) checked[exit] = checkTarget(input[exit], `${path}.${exit}`)
    return checked as unknown as Step
  })
  return { step, path, generated }
}

/** A step holds its id, type, config and the exits of its type: an exit of another type is named as such. */
function checkKeys(input: Record<string, unknown>, type: StepType, path: string): void {
  const exits = EXITS[type]
  const stray = Object.keys(input).find((key) => !['id', 'type', 'config', ...exits].includes(key))
  if (stray === undefined) return
  if (!EVERY_EXIT.includes(stray)) throw invalid(`${path}.${stray}`, 'is not part of a step {id?, type, config, and its exits}')
  const how = exits.length === 0 ? 'has no exits (the run ends there)' : `goes on by ${exits.join(' and ')}`
  throw invalid(`${path}.${stray}`, `a step of type ${type} ${how}, not ${stray}`)
}

function checkTarget(target: unknown, path: string): string | null {
  if (target === undefined || target === null) return null
  if (typeof target !== 'string') throw invalid(path, 'must be the id of a step, or null to end the run there')
  return target
}

/** Ids are unique; a generated id that a given one has taken is named as such. */
function checkIds(located: Located[]): void {
  const seen = new Map<string, string>()
  for (const { step, path, generated } of located) {
    const earlier = seen.get(step.id)
    if (earlier !== undefined) {
      throw invalid(`${path}.id`, generated ? `step '${step.id}': the id it would be given is taken by ${earlier}; give it an id` : `step '${step.id}': ${earlier} has this id already`)
    }
    seen.set(step.id, path)
  }
}

const exitsOf = (step: Step) => EXITS[step.type].map((exit, i) => ({ exit, target: targetsOf(step)[i]! }))

function checkTargets(located: Located[]): void {
  const ids = new Set(located.map((l) => l.step.id))
  for (const { step, path } of located) {
    for (const { exit, target } of exitsOf(step)) {
      if (target !== null && !ids.has(target)) throw invalid(`${path}.${exit}`, `step '${step.id}': goes to '${target}', which is not a step`)
    }
  }
}

const successors = (step: Step) => targetsOf(step).filter((target): target is string => target !== null)

function checkReachable(located: Located[]): void {
  const byId = new Map(located.map((l) => [l.step.id, l.step]))
  const entry = located[0]!.step.id
  const reached = new Set([entry])
  const queue = [entry]
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    for (const next of successors(byId.get(id)!)) {
      if (reached.has(next)) continue
      reached.add(next)
      queue.push(next)
    }
  }
  const lost = located.find((l) => !reached.has(l.step.id))
  if (lost) throw invalid(lost.path, `step '${lost.step.id}': cannot be reached from the entry step '${entry}'`)
}

/** From every step an end can be reached: EXIT, or an exit to null. Otherwise a run could only go round. */
function checkCanEnd(located: Located[]): void {
  const ends = new Set(located.filter((l) => l.step.type === 'EXIT' || targetsOf(l.step).includes(null)).map((l) => l.step.id))
  for (let grew = true; grew; ) {
    grew = false
    for (const { step } of located) {
      if (ends.has(step.id) || !successors(step).some((next) => ends.has(next))) continue
      ends.add(step.id)
      grew = true
    }
  }
  const stuck = located.find((l) => !ends.has(l.step.id))
  if (stuck) throw invalid(stuck.path, `step '${stuck.step.id}': no EXIT step or open exit can be reached from it, so a run that gets there would loop forever`)
}

/**
 * A loop must pass a DELAY or a WAIT_FOR_EVENT step: one that does not would send mail or call
 * webhooks round and round without pause.
 */
function checkLoopsWait(located: Located[]): void {
  const byId = new Map(located.map((l) => [l.step.id, l]))
  const state = new Map<string, 'open' | 'done'>()
  const visit = (id: string): Located | undefined => {
    const here = byId.get(id)!
    if (WAITING.has(here.step.type) || state.get(id) === 'done') return undefined
    if (state.get(id) === 'open') return here
    state.set(id, 'open')
    for (const next of successors(here.step)) {
      const found = visit(next)
      if (found) return found
    }
    state.set(id, 'done')
    return undefined
  }
  for (const { step } of located) {
    const looped = visit(step.id)
    if (looped) throw invalid(looped.path, `step '${looped.step.id}': is on a loop without a DELAY or WAIT_FOR_EVENT step, which would run round without pause`)
  }
}
