// Run by scripts/structure.ts under `bun test --coverage`, never by the suite (its name does not end
// in .test.ts). PROBE says how far it goes, so that line counts of two runs can be subtracted:
// `none` builds the world (an app with a verified domain, fake DNS and a fake MX) and sends nothing;
// `accept` also accepts one transactional email over HTTP; `send` accepts it, then starts the delivery loop (stopped in every mode until then) and delivers it.
import { expect, test } from 'bun:test'
import { createWorld } from '../../test/helpers/world.ts'

const mode = process.env.PROBE ?? 'none'

test(`one transactional send (${mode})`, async () => {
  const w = await createWorld()
  await w.t.app.deliveries.stop()
  try {
    if (mode === 'none') return
    const sent = await w.t.request('POST', '/api/v1/emails', {
      key: w.key,
      body: { from: 'ada@sender.example.com', to: 'dan@example.net', subject: 'Your receipt', html: '<p>Thank you, <a href="https://sender.example.com/r/1">your receipt</a>.</p>' },
    })
    expect(sent.status).toBe(200)
    if (mode === 'accept') return
    await w.t.app.deliveries.start()
    await w.deliver()
    expect(w.mx.received.length).toBe(1)
  } finally {
    await w.close()
  }
})
