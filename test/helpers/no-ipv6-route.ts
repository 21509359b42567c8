// Run inside a network namespace with loopback alone (`unshare -n`, lo up): this host has no
// IPv6 route. Sends two emails to a domain whose MX host has an IPv6 and an IPv4 address, then
// one to a domain whose MX host's IPv4 address refuses connections, and prints, as one JSON line,
// each email's events and how long its delivery took.
import { createWorld } from './world.ts'

const w = await createWorld()
try {
  w.dns.records('dual.example', { type: 'MX', exchange: 'mx.dual.example', priority: 10 })
  w.dns.records('mx.dual.example', { type: 'AAAA', address: '2001:db8::25' }, { type: 'A', address: '127.0.0.2' })
  w.dns.records('closed.example', { type: 'MX', exchange: 'mx.closed.example', priority: 10 })
  w.dns.records('mx.closed.example', { type: 'AAAA', address: '2001:db8::26' }, { type: 'A', address: '127.0.0.99' })
  const results = []
  for (const to of ['first@dual.example', 'second@dual.example', 'jane@closed.example']) {
    const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', text: 'Hello' } })
    const started = performance.now()
    await w.deliver()
    const ms = performance.now() - started
    const email = await w.t.request('GET', `/api/v1/emails/${sent.body.emailId}`, { key: w.key })
    results.push({ ms, events: email.body.emailEvents })
  }
  console.log(JSON.stringify(results))
} finally {
  await w.close()
}
