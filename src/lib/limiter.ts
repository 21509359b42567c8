/**
 * Runs at most `size` of the tasks given to it at once; the others wait their turn, first come
 * first served. For work whose cost is memory held while it runs, so that a crowd of callers
 * costs time, not memory.
 */
export function createLimiter(size: number) {
  let running = 0
  const queue: Array<() => void> = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A slot is handed straight from a finishing task to the next in line, so `running` never dips below what holds one.
    if (running >= size) await new Promise<void>((resolve) => queue.push(resolve))
    else running++
    try {
      return await task()
    } finally {
      const next = queue.shift()
      if (next) next()
      else running--
    }
  }
}
