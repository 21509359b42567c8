/**
 * Worker threads running one script, started on first use; jobs go round-robin and answer by id.
 * The script answers `{id, result}` or `{id, error}` to each `{id, ...job}`.
 */
export function createWorkerPool(script: URL | string, size: number) {
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; worker: Worker }>()
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
      // A worker that cannot load or dies fails its jobs, never leaves them waiting; the pool is
      // built again at the next job.
      worker.onerror = (event: ErrorEvent) => {
        for (const [id, waiter] of pending) {
          if (waiter.worker !== worker) continue
          pending.delete(id)
          waiter.reject(new Error(`mail worker failed: ${event.message}`))
        }
        workers = workers?.filter((w) => w !== worker)
        if (workers?.length === 0) workers = undefined
        worker.terminate()
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
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject, worker })
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
