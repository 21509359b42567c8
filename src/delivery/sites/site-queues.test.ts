import { describe, expect, test } from 'bun:test'
import type { Delivery } from '../attempt.ts'
import type { SiteIdentity } from './site-of.ts'
import { SiteQueues } from './site-queues.ts'

let nextId = 1
const delivery = (domain: string, projectId = 1, sandbox = 0): Delivery => ({
  id: nextId++,
  email_id: 'e1',
  project_id: projectId,
  recipient: `r${nextId}@${domain}`,
  recipient_domain: domain,
  state: 'sending',
  attempts: 0,
  next_attempt_at: 0,
  expires_at: 1e15,
  last_mx: null,
  last_response: null,
  last_ip: null,
  last_tls: null,
  sandbox,
  created_at: 0,
  updated_at: 0,
  claimed_by: 'me',
  lease_until: 1e15,
})

/** Queues over a resolver that knows `known` at once and looks the rest up when `answer` is called. */
function queuesOf(known: Record<string, string> = {}) {
  const lookups: Array<{ domain: string; answer: (site: string) => void }> = []
  const found: Array<[string, string]> = []
  const tracked: Array<Promise<unknown>> = []
  const woken = { count: 0 }
  const identity = (name: string): SiteIdentity => ({ name, mxHosts: [name] })
  const queues = new SiteQueues({
    sites: {
      cached: (domain) => (known[domain] ? identity(known[domain]) : undefined),
      resolve: (domain) => new Promise((resolve) => lookups.push({ domain, answer: (site) => resolve(identity(site)) })),
    },
    know: (site) => site.name,
    found: (domain, site) => found.push([domain, site]),
    track: (work) => tracked.push(work),
    wake: () => woken.count++,
  })
  return { queues, lookups, found, tracked, woken }
}

const sitesOf = (queues: SiteQueues) => [...queues.sites()]

describe('the per-site queues of claimed deliveries', () => {
  test('a delivery whose domain\'s site is known waits with that site at once', () => {
    const { queues, lookups } = queuesOf({ 'a.example': 'mx.a' })
    queues.add(delivery('a.example'))
    queues.add(delivery('a.example'))
    expect(sitesOf(queues)).toEqual(['mx.a'])
    expect(queues.buffered).toBe(2)
    expect(lookups).toEqual([])
  })

  test('sandbox mail goes to the sandbox site without a lookup', () => {
    const { queues, lookups } = queuesOf()
    queues.add(delivery('gmail.com', 1, 1))
    expect(sitesOf(queues)).toEqual(['sandbox'])
    expect(lookups).toEqual([])
  })

  test('a domain not known is looked up once for all its deliveries; they wait with its site once found, and the loop is woken', async () => {
    const { queues, lookups, found, tracked, woken } = queuesOf()
    queues.add(delivery('b.example'))
    queues.add(delivery('b.example'))
    expect(lookups.map((lookup) => lookup.domain)).toEqual(['b.example'])
    expect(sitesOf(queues)).toEqual([])
    expect(queues.buffered).toBe(2)
    lookups[0]!.answer('mx.b')
    await Promise.all(tracked)
    expect(sitesOf(queues)).toEqual(['mx.b'])
    expect(found).toEqual([['b.example', 'mx.b']])
    expect(woken.count).toBe(1)
    expect(queues.hasRoom('mx.b', 1, 1)).toBe(true)
  })

  test('a claim skips the domains with a round of attempts buffered, and those held back until their time has come', () => {
    const { queues } = queuesOf({ 'a.example': 'mx.a', 'c.example': 'mx.c', 'd.example': 'mx.d' })
    for (let i = 0; i < 3; i++) queues.add(delivery('a.example'))
    queues.add(delivery('c.example'))
    queues.add(delivery('d.example'))
    expect(queues.skippedDomains(3, 0)).toEqual(['a.example'])
    expect(queues.holdBack('mx.d', 1000).map((each) => each.recipient_domain)).toEqual(['d.example'])
    expect(queues.buffered).toBe(4)
    expect(queues.skippedDomains(3, 999)).toEqual(['a.example', 'd.example'])
    expect(queues.skippedDomains(3, 1000)).toEqual(['a.example'])
    expect(queues.skippedDomains(4, 1000)).toEqual([])
  })

  test('a start takes a slot of its site and of the loop; its release gives it back once, and wakes the loop', () => {
    const { queues, woken } = queuesOf({ 'a.example': 'mx.a' })
    const first = delivery('a.example')
    queues.add(first)
    queues.add(delivery('a.example'))
    expect(queues.hasRoom('mx.a', 1, 10)).toBe(true)
    const { delivery: started, release } = queues.start('mx.a', 0)
    expect(started).toBe(first)
    expect(queues.buffered).toBe(1)
    expect(queues.active).toBe(1)
    expect(queues.hasRoom('mx.a', 1, 10)).toBe(false)
    expect(queues.hasRoom('mx.a', 2, 1)).toBe(false)
    expect(queues.hasRoom('mx.a', 2, 2)).toBe(true)
    release()
    release()
    expect(queues.active).toBe(0)
    expect(woken.count).toBe(1)
    expect(queues.hasRoom('mx.a', 1, 1)).toBe(true)
  })

  test('the first delivery whose project is ready is found past those whose project is not', async () => {
    const { queues } = queuesOf({ 'a.example': 'mx.a' })
    queues.add(delivery('a.example', 1))
    queues.add(delivery('a.example', 2))
    expect(await queues.firstReady('mx.a', async (project) => project === 2)).toBe(1)
    expect(queues.at('mx.a', 1).project_id).toBe(2)
    expect(await queues.firstReady('mx.a', async () => false)).toBe(-1)
  })

  test('a site\'s queue is forgotten once empty; a clear forgets every delivery not started', () => {
    const { queues } = queuesOf({ 'a.example': 'mx.a', 'b.example': 'mx.b' })
    queues.add(delivery('a.example'))
    queues.add(delivery('b.example'))
    queues.start('mx.a', 0)
    queues.tidy('mx.a')
    queues.tidy('mx.b')
    expect(sitesOf(queues)).toEqual(['mx.b'])
    queues.clear()
    expect(sitesOf(queues)).toEqual([])
    expect(queues.buffered).toBe(0)
    expect(queues.active).toBe(1)
  })
})
