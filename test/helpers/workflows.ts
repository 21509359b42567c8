import type { World } from './world.ts'

export const FROM = 'Shop <shop@sender.example.com>'

/** Creates an enabled workflow through the API; fails the test when it is refused. */
export async function workflow(w: World, fields: Record<string, unknown>) {
  const answer = await w.t.request('POST', '/workflows', { key: w.key, body: { name: 'Flow', enabled: true, ...fields } })
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`workflow refused: ${JSON.stringify(answer.body)}`)
  return answer.body as { id: string; signingSecret: string; steps: Array<{ id: string }> }
}

export const track = (w: World, email: string, event: string, data?: Record<string, unknown>) =>
  w.t.request('POST', '/v1/track', { key: w.key, body: { email, event, ...(data && { data }) } })

/** The workflow's runs, newest first, each with its history. */
export async function runsOf(w: World, workflowId: string) {
  const page = (await w.t.request('GET', `/workflows/${workflowId}/executions?pageSize=100`, { key: w.key })).body
  const runs = page.executions ?? page.data ?? page
  return Promise.all(
    runs.map(async (run: { id: string }) => (await w.t.request('GET', `/workflows/${workflowId}/executions/${run.id}`, { key: w.key })).body),
  ) as Promise<Array<{ id: string; state: string; currentStep: string | null; contactId: string; history: Array<{ stepId: string; outcome: string; detail: any }> }>>
}

/** Runs the workflow engine and then the delivery loop until neither has anything due. */
export async function settle(w: World) {
  await w.t.app.workflows.drain()
  await w.deliver()
  await w.t.app.workflows.drain()
}
