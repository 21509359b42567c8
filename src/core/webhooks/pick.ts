/** An enabled webhook with deliveries due: its failures in a row, and its soonest due deliveries. */
export interface DueWork {
  webhookId: string
  failures: number
  due: Array<{ id: string; at: number }>
}

export interface Caps {
  /** Calls under way to one webhook at most. */
  perWebhook: number
  /** The same for a webhook whose last call failed: a dead or hanging endpoint gets fewer. */
  perFailingWebhook: number
}

const capOf = (work: DueWork, caps: Caps) => (work.failures > 0 ? caps.perFailingWebhook : caps.perWebhook)

/**
 * Which due deliveries to call now: `room` at most in all, and to each webhook no more than its
 * cap less the calls already under way to it. Webhooks take turns, one delivery each, the one
 * waiting longest first, so an endpoint with a long queue or one that hangs takes its own share
 * and leaves the rest to the others.
 */
export function pickDeliveries(work: readonly DueWork[], underWay: ReadonlyMap<string, number>, room: number, caps: Caps): string[] {
  const queues = work
    .map((w) => w.due.slice(0, Math.max(0, capOf(w, caps) - (underWay.get(w.webhookId) ?? 0))))
    .filter((due) => due.length > 0)
    .sort((a, b) => a[0]!.at - b[0]!.at)
  const picked: string[] = []
  for (let turn = 0; picked.length < room; turn++) {
    const taking = queues.filter((due) => turn < due.length)
    if (taking.length === 0) break
    for (const due of taking.slice(0, room - picked.length)) picked.push(due[turn]!.id)
  }
  return picked
}
