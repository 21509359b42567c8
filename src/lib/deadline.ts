/**
 * Whether `work` settles within `ms`. Past that it is left to run on, unwatched: its rejection,
 * whenever it comes, goes to `failed` instead of becoming an unhandled rejection.
 */
export function settlesWithin(work: Promise<unknown>, ms: number, failed: (error: unknown) => void): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const settled = work.then(
    () => true,
    (error) => {
      failed(error)
      return true
    },
  )
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms))
  })
  return Promise.race([settled, late]).finally(() => clearTimeout(timer))
}
