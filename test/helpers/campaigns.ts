import type { World } from './world.ts'

/** Adds contacts through the API; `data` per contact from its index. */
export async function addContacts(w: World, emails: string[], data: (i: number) => Record<string, unknown> = () => ({})) {
  const created = await Promise.all(emails.map((email, i) => w.t.request('POST', '/contacts', { key: w.key, body: { email, data: data(i) } })))
  for (const answer of created) if (answer.status >= 300) throw new Error(`could not add a contact: ${JSON.stringify(answer.body)}`)
  return created.map((answer) => answer.body as { id: string; email: string })
}

export const campaignOf = async (w: World, id: string) => (await w.t.request('GET', `/campaigns/${id}`, { key: w.key })).body.data

/**
 * Runs the campaign sender and the delivery loop in turns until the campaign is no longer SENDING
 * and nothing is left to deliver (or `rounds` pass): what the timers do in a running server.
 */
export async function runCampaign(w: World, id: string, rounds = 100) {
  for (let i = 0; i < rounds; i++) {
    await w.t.app.campaigns.drain()
    await w.deliver()
    if ((await campaignOf(w, id)).status !== 'SENDING') {
      await w.deliver()
      return campaignOf(w, id)
    }
  }
  throw new Error(`campaign ${id} still sending after ${rounds} rounds`)
}

/** Message-IDs received by each recipient at the fake MX. */
export function messageIdsByRecipient(w: World): Map<string, string[]> {
  const byRecipient = new Map<string, string[]>()
  for (const message of w.mx.received) {
    const id = /^message-id:\s*(\S+)/im.exec(message.raw.toString('latin1'))?.[1] ?? ''
    for (const to of message.to) byRecipient.set(to, [...(byRecipient.get(to) ?? []), id])
  }
  return byRecipient
}
