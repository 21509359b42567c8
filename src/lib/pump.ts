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
      .finally(() => {
        pumping = undefined
        // A wake that came after the last look at `again` (while the run was settling) is not lost.
        if (again) wake()
      })
  }

  return {
    wake,
    /** Takes wakes again; runs a round at once unless `roundNow` is false. */
    start(roundNow = true) {
      stopped = false
      if (roundNow) wake()
    },
    /** Takes no more wakes; resolves when the round under way has ended. */
    async stop() {
      stopped = true
      while (pumping) await pumping
    },
    /** Resolves when no round is under way, nor one a late wake started after it. */
    async idle() {
      while (pumping) await pumping
    },
  }
}
