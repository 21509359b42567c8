import { expect, test } from 'bun:test'
import { createRegistry } from './metrics.ts'
import { processMetrics } from './process-metrics.ts'

const valueOf = (page: string, name: string) => Number(page.split('\n').find((line) => line.startsWith(`${name} `))!.split(' ')[1])

test('uptime and resident memory are read at each scrape; a stalled event loop shows as lag, then the next scrape starts over', async () => {
  const registry = createRegistry()
  const gauges = processMetrics(registry, 'app')
  expect(valueOf(await registry.expose(), 'app_event_loop_lag_max_seconds')).toBe(0)
  gauges.start()
  try {
    await Bun.sleep(30)
    const stalledUntil = performance.now() + 80
    while (performance.now() < stalledUntil) {
      // The event loop is blocked, as a long synchronous query would block it.
    }
    await Bun.sleep(60)
    const page = await registry.expose()
    expect(valueOf(page, 'app_uptime_seconds')).toBeGreaterThan(0)
    expect(valueOf(page, 'app_resident_memory_bytes')).toBeGreaterThan(1_000_000)
    const stall = valueOf(page, 'app_event_loop_lag_max_seconds')
    expect(stall).toBeGreaterThan(0.04)
    expect(valueOf(page, 'app_event_loop_lag_p99_seconds')).toBeGreaterThan(0)
    await Bun.sleep(60)
    expect(valueOf(await registry.expose(), 'app_event_loop_lag_max_seconds')).toBeLessThan(stall)
  } finally {
    gauges.stop()
  }
})
