/**
 * `once` made safe to call from anywhere: calls never overlap, and a call while one runs asks it
 * to run again when it ends and shares its answer (a sum of what each run answered). For taking
 * work as places free up, where many may free up at once. Nothing runs once `stopped()` holds.
 */
export function coalesce(once: () => Promise<number>, stopped: () => boolean) {
  let running: Promise<number> | undefined
  let again = false
  const call = (): Promise<number> => {
    if (stopped()) return Promise.resolve(0)
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      let total = 0
      do {
        again = false
        total += await once()
      } while (again && !stopped())
      return total
    })().finally(() => (running = undefined))
    return running
  }
  return Object.assign(call, {
    /** The run under way, if any. */
    pending: (): Promise<number> | undefined => running,
  })
}
