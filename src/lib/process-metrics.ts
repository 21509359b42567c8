import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { Registry } from './metrics.ts'

/** How often the event loop's delay is sampled, in milliseconds. */
const LAG_RESOLUTION_MS = 20

/**
 * The process's own gauges: uptime, resident memory and event-loop lag, read at each scrape. The
 * lag is sampled by a native timer between start() and stop(); each scrape reports the samples
 * since the scrape before (a stall between two scrapes shows in the max even when it is over).
 */
export function processMetrics(registry: Registry, prefix: string) {
  let lag: ReturnType<typeof monitorEventLoopDelay> | undefined
  registry.gauge({ name: `${prefix}_uptime_seconds`, help: 'Seconds since the process started', collect: (gauge) => gauge.set({}, process.uptime()) })
  registry.gauge({
    name: `${prefix}_resident_memory_bytes`,
    help: 'Resident set size of the process, in bytes',
    collect: (gauge) => gauge.set({}, process.memoryUsage.rss()),
  })
  const p99 = registry.gauge({ name: `${prefix}_event_loop_lag_p99_seconds`, help: 'How late the event loop ran a timer since the previous scrape: 99th percentile' })
  registry.gauge({
    name: `${prefix}_event_loop_lag_max_seconds`,
    help: 'How late the event loop ran a timer since the previous scrape: the most',
    collect(max) {
      // Nothing sampled (not started, or scraped twice within a sample) reads as no lag.
      const sampled = lag !== undefined && lag.count > 0
      max.set({}, sampled ? lag!.max / 1e9 : 0)
      p99.set({}, sampled ? lag!.percentile(99) / 1e9 : 0)
      lag?.reset()
    },
  })
  return {
    start() {
      lag ??= monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS })
      lag.enable()
    },
    stop() {
      lag?.disable()
    },
  }
}
