/** Time as the application sees it; tests inject a clock they can move. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

export const isoTime = (ms: number) => new Date(ms).toISOString()
