/*
 * A sliding window's counts, as its shared row keeps them: how many requests were taken in each
 * step (a second, say), oldest first. A count belongs to every window that holds its step, so a
 * window of `span` steps is one step more than its length: a minute spans parts of 61 seconds.
 * Pure: the shared windows run these inside a compare-and-set of the row.
 */

/** Steps that had requests, oldest first, and how many each had. */
export interface Steps {
  steps: number[]
  counts: number[]
}

/** How a window is counted: its length and the step its requests are counted by (ms). */
export interface StepShape {
  windowMs: number
  stepMs: number
}

export const spanOf = (shape: StepShape) => Math.ceil(shape.windowMs / shape.stepMs) + 1
export const stepAt = (shape: StepShape, ms: number) => Math.floor(ms / shape.stepMs)
/** When a step's count leaves every window (ms). */
export const leavesAt = (shape: StepShape, step: number) => (step + spanOf(shape)) * shape.stepMs

/** `step:count` pairs separated by spaces. */
export const encodeSteps = (counts: Steps) => counts.steps.map((step, i) => `${step}:${counts.counts[i]}`).join(' ')

export function decodeSteps(text: string | undefined): Steps {
  const counts: Steps = { steps: [], counts: [] }
  if (!text) return counts
  for (const pair of text.split(' ')) {
    const [step, count] = pair.split(':').map(Number)
    counts.steps.push(step!)
    counts.counts.push(count!)
  }
  return counts
}

/** The counts still in the window that holds `step` (later ones too: another process's clock may be ahead). */
export function current(counts: Steps, shape: StepShape, step: number): Steps {
  const first = counts.steps.findIndex((s) => s > step - spanOf(shape))
  if (first === 0) return counts
  if (first < 0) return { steps: [], counts: [] }
  return { steps: counts.steps.slice(first), counts: counts.counts.slice(first) }
}

export const totalOf = (counts: Steps) => counts.counts.reduce((sum, n) => sum + n, 0)

/** `counts` with `n` more (or fewer, when negative, never below none) at `step`, in order. */
export function addAt(counts: Steps, step: number, n: number): Steps {
  const steps = [...counts.steps]
  const values = [...counts.counts]
  let index = steps.findIndex((s) => s >= step)
  if (index < 0) index = steps.length
  if (steps[index] !== step) {
    if (n <= 0) return counts
    steps.splice(index, 0, step)
    values.splice(index, 0, 0)
  }
  values[index] = Math.max(0, values[index]! + n)
  if (values[index] === 0) {
    steps.splice(index, 1)
    values.splice(index, 1)
  }
  return { steps, counts: values }
}

/**
 * How long after `now` one more request fits under `limit` (0 when it fits now): the oldest steps
 * leave first, and enough of them must leave.
 */
export function retryAfterMs(counts: Steps, shape: StepShape, limit: number, now: number): number {
  let total = totalOf(counts)
  if (total < limit) return 0
  let index = 0
  while (index < counts.steps.length - 1 && (total -= counts.counts[index]!) >= limit) index++
  return Math.max(1, leavesAt(shape, counts.steps[index]!) - now)
}
