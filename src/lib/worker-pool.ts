/**
 * Worker threads running one script, started on first use; jobs go round-robin and answer by id.
 * The script answers `{id, result}` or `{id, error}` to each `{id, ...job}`.
 */
export function createWorkerPool(script: URL, size: number) {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()
  let workers: Worker[] | undefined
  let next = 0

  const spawn = () =>
    Array.from({ length: size }, () => {
      const worker = new Worker(script, { smol: true } as WorkerOptions)
      worker.onmessage = (event: MessageEvent) => {
        const { id, result, error } = event.data
        const waiter = pending.get(id)
        pending.delete(id)
        if (error !== undefined) waiter?.reject(new Error(error))
        else waiter?.resolve(result)
      }
      worker.unref()
      return worker
    })

  return {
    run<T>(job: Record<string, unknown>): Promise<T> {
      const id = next++
      workers ??= spawn()
      const worker = workers[id % workers.length]!
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
        worker.postMessage({ ...job, id })
      })
    },
    close() {
      for (const worker of workers ?? []) worker.terminate()
      workers = undefined
      for (const waiter of pending.values()) waiter.reject(new Error('worker pool closed'))
      pending.clear()
    },
  }
}
