import { conflict, invalid, notFound } from '../../lib/errors.ts'
import { EXITS, targetsOf, type Step, type StepType } from './workflow.ts'

/*
 * Edits of one step in a workflow's graph. Each gives the whole new list of steps, unchecked:
 * the caller checks the result as a whole (checkSteps), so an edit that would leave the graph
 * invalid changes nothing.
 */

type Raw = Record<string, unknown>

export interface Placement {
  /** The step the new one follows; absent: the new step becomes the entry. */
  after?: string
  /** Which exit of `after` leads to the new step; needed when `after` has several. */
  exit?: string
}

const findStep = (steps: readonly Step[], id: string) => {
  const index = steps.findIndex((step) => step.id === id)
  if (index < 0) throw notFound(`Step '${id}'`)
  return index
}

/** `step_<n>` for the first n past the number of steps that no step has taken. */
function freeId(steps: readonly Step[]): string {
  const taken = new Set(steps.map((step) => step.id))
  let n = steps.length + 1
  while (taken.has(`step_${n}`)) n++
  return `step_${n}`
}

/**
 * Inserts a step after `after` on its exit: the new step takes over where that exit went (each of
 * its exits that the input leaves out goes there). Without `after` it becomes the entry and
 * leads to the old entry.
 */
export function insertStep(steps: readonly Step[], input: Raw, placement: Placement): Raw[] {
  const step: Raw = { ...input, id: input.id ?? freeId(steps) }
  if (placement.after === undefined) {
    if (placement.exit !== undefined) throw invalid('exit', 'goes with after: the exit of that step that leads to the new one')
    return [takeOver(step, steps[0]?.id ?? null), ...steps]
  }
  const index = steps.findIndex((s) => s.id === placement.after)
  if (index < 0) throw invalid('after', `there is no step '${placement.after}'`)
  const anchor = steps[index]!
  const exit = exitOf(anchor, placement.exit)
  const target = (anchor as unknown as Raw)[exit] as string | null
  return [...steps.slice(0, index), { ...anchor, [exit]: step.id }, takeOver(step, target), ...steps.slice(index + 1)]
}

function exitOf(anchor: Step, exit: string | undefined): string {
  const exits = EXITS[anchor.type]
  if (exits.length === 0) throw invalid('after', `step '${anchor.id}' is an EXIT step: nothing comes after it`)
  if (exit === undefined && exits.length === 1) return exits[0]!
  if (exit === undefined || !exits.includes(exit)) {
    throw invalid('exit', `step '${anchor.id}' goes on by ${exits.join(' and ')}; say which of them leads to the new step`)
  }
  return exit
}

/** The new step's exits that the input leaves out go to `target`. */
function takeOver(step: Raw, target: string | null): Raw {
  const exits = EXITS[step.type as StepType] ?? []
  return { ...step, ...Object.fromEntries(exits.filter((exit) => !(exit in step)).map((exit) => [exit, target])) }
}

/** Changes a step's config and/or transitions; its id and type stay. */
export function patchStep(steps: readonly Step[], id: string, changes: Raw): Raw[] {
  const index = findStep(steps, id)
  return steps.map((step, i) => (i === index ? { ...step, ...changes } : step))
}

/**
 * Removes a step; the exits that led to it lead where it led. A step whose exits lead to
 * different places cannot say where that is (409). Removing the entry makes its successor the
 * entry.
 */
export function deleteStep(steps: readonly Step[], id: string): Raw[] {
  const step = steps[findStep(steps, id)]!
  const targets = [...new Set(targetsOf(step))]
  if (targets.length > 1) {
    const where = EXITS[step.type].map((exit, i) => `${exit} to ${targetsOf(step)[i] === null ? 'the end' : `'${targetsOf(step)[i]}'`}`).join(', ')
    throw conflict(
      `Step '${id}' branches (${where}): the steps before it could go either way`,
      'Point all its exits to one step first (PATCH the step), or delete the steps of one branch.',
    )
  }
  const successor = targets[0] ?? null
  const rest = steps
    .filter((s) => s.id !== id)
    .map((s) => Object.fromEntries(Object.entries(s).map(([key, value]) => [key, EXITS[s.type].includes(key) && value === id ? successor : value])))
  if (steps[0]!.id !== id || successor === null) return rest
  const entry = rest.findIndex((s) => s.id === successor)
  return entry < 0 ? rest : [rest[entry]!, ...rest.filter((_, i) => i !== entry)]
}
