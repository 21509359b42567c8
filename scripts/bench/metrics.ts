// Mailstead's metrics registry (src/lib/metrics.ts) against prom-client, doing what every HTTP
// request does (src/http/observe.ts): a counter by method, route and status, and a histogram of
// the duration by method and route, over the routes and statuses a busy server sees; then one
// scrape of the page. Prints one JSON line {ours_ns_per_request, prom_client_ns_per_request,
// ours_scrape_ms, prom_client_scrape_ms, requests}. The figure under load is in docs/operations/monitoring.md
// (scripts/bench/track.ts run with each registry).
//   npx bun scripts/bench/metrics.ts [--requests N]
import * as prom from 'prom-client'
import { createRegistry } from '../../src/lib/metrics.ts'

const at = process.argv.indexOf('--requests')
const requests = at > 0 ? Number(process.argv[at + 1]) : 2_000_000
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const ROUTES = ['/v1/track', '/v1/send', '/api/v1/emails', '/contacts/:id', '/api/v1/emails/:id', 'unmatched']
const STATUSES = ['200', '200', '200', '201', '404', '422']
const METHODS = ['POST', 'POST', 'POST', 'GET', 'GET', 'GET']

interface Recorder {
  record(method: string, route: string, status: string, seconds: number): void
  scrape(): Promise<string>
}

function ours(): Recorder {
  const registry = createRegistry()
  const counter = registry.counter({ name: 'http_requests_total', help: 'h', labelNames: ['method', 'route', 'status'] })
  const histogram = registry.histogram({ name: 'http_request_duration_seconds', help: 'h', labelNames: ['method', 'route'], buckets: BUCKETS })
  return {
    record(method, route, status, seconds) {
      counter.inc({ method, route, status })
      histogram.observe({ method, route }, seconds)
    },
    scrape: () => registry.expose(),
  }
}

function promClient(): Recorder {
  const registry = new prom.Registry()
  const counter = new prom.Counter({ name: 'http_requests_total', help: 'h', labelNames: ['method', 'route', 'status'], registers: [registry] })
  const histogram = new prom.Histogram({ name: 'http_request_duration_seconds', help: 'h', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [registry] })
  return {
    record(method, route, status, seconds) {
      counter.inc({ method, route, status })
      histogram.observe({ method, route }, seconds)
    },
    scrape: () => registry.metrics(),
  }
}

async function measure(recorder: Recorder) {
  // A warm-up, so that both are measured compiled.
  for (let i = 0; i < 200_000; i++) recorder.record(METHODS[i % 6]!, ROUTES[i % 6]!, STATUSES[i % 6]!, (i % 100) / 1000)
  const started = Bun.nanoseconds()
  for (let i = 0; i < requests; i++) recorder.record(METHODS[i % 6]!, ROUTES[i % 6]!, STATUSES[i % 6]!, (i % 100) / 1000)
  const ns = (Bun.nanoseconds() - started) / requests
  const scrapeStarted = Bun.nanoseconds()
  for (let i = 0; i < 100; i++) await recorder.scrape()
  return { ns, scrapeMs: (Bun.nanoseconds() - scrapeStarted) / 100 / 1e6 }
}

const a = await measure(ours())
const b = await measure(promClient())
const round = (n: number, places = 1) => Math.round(n * 10 ** places) / 10 ** places
console.log(
  JSON.stringify({
    ours_ns_per_request: round(a.ns),
    prom_client_ns_per_request: round(b.ns),
    ours_scrape_ms: round(a.scrapeMs, 3),
    prom_client_scrape_ms: round(b.scrapeMs, 3),
    requests,
  }),
)
