// @database
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createChildWorld, type ChildWorld } from '../helpers/child-world.ts'
import { openDirect } from '../helpers/direct-db.ts'
import { until } from '../helpers/until.ts'

let w: ChildWorld

beforeAll(async () => {
  w = await createChildWorld('workflow-crash-secret-workflow-crash-0')
})

afterAll(() => w.close())

/** How many deliveries are not delivered yet, read beside the server. */
async function undelivered() {
  const database = await openDirect(w)
  try {
    return (await database.db.selectFrom('deliveries').select('id').where('state', '!=', 'delivered').execute()).length
  } finally {
    await database.close()
  }
}

const track = (email: string, event: string) => w.api('POST', '/v1/track', { email, event })

/** The runs' states, once `count` of them are `want` (or after `ms`). */
async function statesOf(workflowId: string, want: string, count: number, ms = 5_000) {
  const read = async (): Promise<string[]> => (await w.api('GET', `/workflows/${workflowId}/executions`)).body.executions.map((e: { state: string }) => e.state)
  // Every quarter second: the project may make 1,000 requests a minute.
  return until(read, (states) => states.filter((s) => s === want).length === count, ms, 250)
}

const flow = async (name: string, eventName: string, steps: unknown[]) =>
  (await w.api('POST', '/workflows', { name, enabled: true, triggerType: 'EVENT', triggerConfig: { eventName }, steps })).body

const welcome = (subject: string) => ({ id: 'mail', type: 'SEND_EMAIL', config: { from: 'team@sender.example.com', subject, body: '<p>Hi</p>' } })

test(
  'killed with SIGKILL while runs are in a DELAY or wait for an event, the server starts again and each run goes on once, at its time',
  async () => {
    await w.start()
    await w.verifiedDomain()
    const waiting = await flow('Activation', 'signup', [
      { id: 'wait', type: 'WAIT_FOR_EVENT', config: { eventName: 'activated', timeoutSeconds: 86_400 }, onEvent: 'mail', onTimeout: null },
      welcome('Welcome aboard'),
    ])
    const delayed = await flow('Follow-up', 'trial', [{ id: 'pause', type: 'DELAY', config: { amount: 1, unit: 'minutes' }, next: 'mail' }, welcome('One minute later')])
    const people = ['kim@example.net', 'lee@example.net', 'max@example.net']
    for (const email of people) await track(email, 'signup')
    await track('tess@example.net', 'trial')
    const trialAt = Date.now()
    expect(await statesOf(waiting.id, 'WAITING', 3)).toEqual(['WAITING', 'WAITING', 'WAITING'])
    expect(await statesOf(delayed.id, 'WAITING', 1)).toEqual(['WAITING'])
    await w.kill()

    await w.start()
    for (const email of people) await track(email, 'activated')
    expect(await statesOf(waiting.id, 'COMPLETED', 3)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED'])
    expect(await statesOf(delayed.id, 'COMPLETED', 1, 70_000)).toEqual(['COMPLETED'])
    expect(Date.now() - trialAt).toBeGreaterThanOrEqual(59_000)
    // Every delivery settled: no second copy is still on its way.
    await until(undelivered, (n) => n === 0, 10_000)
    expect(w.mx.received.map((m) => m.to[0]).sort()).toEqual([...people, 'tess@example.net'].sort())
  },
  { timeout: 120_000 },
)
