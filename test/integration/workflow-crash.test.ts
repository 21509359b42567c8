import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createChildWorld, type ChildWorld } from '../helpers/child-world.ts'

let w: ChildWorld

beforeAll(async () => {
  w = await createChildWorld('workflow-crash-secret-workflow-crash-0')
})

afterAll(() => w.close())

const track = (email: string, event: string) => w.api('POST', '/v1/track', { email, event })

async function statesOf(workflowId: string, want: string, count: number) {
  let states: string[] = []
  for (let i = 0; i < 200; i++) {
    states = (await w.api('GET', `/workflows/${workflowId}/executions`)).body.executions.map((e: { state: string }) => e.state)
    if (states.filter((s) => s === want).length === count) break
    await Bun.sleep(25)
  }
  return states
}

test('killed with SIGKILL while runs wait for an event, the server starts again and each run goes on once', async () => {
  await w.start()
  await w.verifiedDomain()
  const flow = (
    await w.api('POST', '/workflows', {
      name: 'Activation',
      enabled: true,
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'signup' },
      steps: [
        { id: 'wait', type: 'WAIT_FOR_EVENT', config: { eventName: 'activated', timeoutSeconds: 86_400 }, onEvent: 'welcome', onTimeout: null },
        { id: 'welcome', type: 'SEND_EMAIL', config: { from: 'team@sender.example.com', subject: 'Welcome aboard', body: '<p>Hi</p>' } },
      ],
    })
  ).body
  const people = ['kim@example.net', 'lee@example.net', 'max@example.net']
  for (const email of people) await track(email, 'signup')
  expect(await statesOf(flow.id, 'WAITING', 3)).toEqual(['WAITING', 'WAITING', 'WAITING'])
  await w.kill()

  await w.start()
  for (const email of people) await track(email, 'activated')
  expect(await statesOf(flow.id, 'COMPLETED', 3)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED'])
  for (let i = 0; i < 200 && w.mx.received.length < 3; i++) await Bun.sleep(25)
  await Bun.sleep(200)
  expect(w.mx.received.map((m) => m.to[0]).sort()).toEqual([...people].sort())
})
