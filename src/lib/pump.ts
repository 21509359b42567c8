/**
 * Runs `round` over and over while it answers that there is more to do, never two at once; a
 * wake while one runs asks for another after it. Between rounds the event loop turns, so a long
 * run of rounds does not keep requests waiting. What a round throws goes to `failed`.
 */
export function createPump(round: () => Promise<boolean>, failed: (error: unknown) => void) {
  let stopped = true
  let pumping: Promise<void> | undefined
  let again = false

  function wake() {
    if (stopped) return
    if (pumping) {
      again = true
      return
    }
    pumping = (async () => {
      do {
        again = false
        while (!stopped && (await round())) await new Promise((resolve) => setImmediate(resolve))
      } while (again && !stopped)
    })()
      .catch(failed)
      .finally(() => (pumping = undefined))
  }

  return {
    wake,
    start() {
      stopped = false
      wake()
    },
    /** Takes no more wakes; resolves when the round under way has ended. */
    async stop() {
      stopped = true
      await pumping
    },
    /** Resolves when the round under way, if any, has ended. */
    idle: () => pumping ?? Promise.resolve(),
  }
}
