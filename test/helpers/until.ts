/**
 * Reads until `done` says so or `ms` pass; answers the last value read, for the test's own
 * expectation to show. The one wait on a condition: a test waits for what it needs, not for a
 * fixed time that is too long on an idle machine and too short on a loaded one.
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000, pauseMs = 50): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await Bun.sleep(pauseMs)
  }
}

/** Waits until `check` holds, for `ms` at most; fails naming `what` if it never does. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 5000, pauseMs = 20): Promise<void> {
  if (!(await until(async () => check(), (yes) => yes, ms, pauseMs))) throw new Error(`timed out waiting for ${what}`)
}
