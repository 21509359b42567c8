import { describe, expect, test } from 'bun:test'
import { boundedLabel, createRegistry, escapeLabelValue, formatNumber } from './metrics.ts'

/** A sample line of the text format: name, optional {label="value",...}, a value. */
const SAMPLE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^"\\\n])*"(,[a-zA-Z_][a-zA-Z0-9_]*="(\\[\\"n]|[^"\\\n])*")*\})? (NaN|[+-]Inf|-?\d+(\.\d+)?(e[+-]?\d+)?)$/

const samples = (page: string) => page.split('\n').filter((line) => line !== '' && !line.startsWith('#'))

describe('the exposition format', () => {
  test('has HELP and TYPE lines, then one line per series, and ends with a newline', async () => {
    const registry = createRegistry()
    const requests = registry.counter({ name: 'app_requests_total', help: 'Requests', labelNames: ['method', 'status'] })
    requests.inc({ method: 'GET', status: '200' })
    requests.inc({ method: 'GET', status: '200' }, 2)
    requests.inc({ method: 'POST', status: '422' })
    const page = await registry.expose()
    expect(page).toBe(
      [
        '# HELP app_requests_total Requests',
        '# TYPE app_requests_total counter',
        'app_requests_total{method="GET",status="200"} 3',
        'app_requests_total{method="POST",status="422"} 1',
        '',
      ].join('\n'),
    )
  })

  test('a metric without labels shows its zero before anything is recorded; one with labels shows no series', async () => {
    const registry = createRegistry()
    registry.counter({ name: 'app_starts_total', help: 'Starts' })
    registry.histogram({ name: 'app_wait_seconds', help: 'Wait', buckets: [1] })
    registry.counter({ name: 'app_errors_total', help: 'Errors', labelNames: ['kind'] })
    expect(samples(await registry.expose())).toEqual(['app_starts_total 0', 'app_wait_seconds_bucket{le="1"} 0', 'app_wait_seconds_bucket{le="+Inf"} 0', 'app_wait_seconds_sum 0', 'app_wait_seconds_count 0'])
  })

  test('escapes backslash, double quote and newline in label values, backslash and newline in help', async () => {
    const registry = createRegistry()
    registry.gauge({ name: 'app_odd', help: 'Help with \\ and\nnewline "quoted"', labelNames: ['value'] }).set({ value: 'a\\b "c"\nd' }, 1)
    const page = await registry.expose()
    expect(page).toContain('# HELP app_odd Help with \\\\ and\\nnewline "quoted"\n')
    expect(page).toContain('app_odd{value="a\\\\b \\"c\\"\\nd"} 1\n')
    for (const line of samples(page)) expect(line).toMatch(SAMPLE)
  })

  test('numbers: integers and fractions as they are, infinities as +Inf and -Inf, NaN as NaN', () => {
    expect([3, 0.25, 1e-7, Infinity, -Infinity, NaN].map(formatNumber)).toEqual(['3', '0.25', '1e-7', '+Inf', '-Inf', 'NaN'])
    expect(escapeLabelValue('plain.example.com')).toBe('plain.example.com')
  })
})

describe('histograms', () => {
  test('buckets are cumulative, end at +Inf, and come with _sum and _count', async () => {
    const registry = createRegistry()
    const latency = registry.histogram({ name: 'app_latency_seconds', help: 'Latency', labelNames: ['route'], buckets: [0.1, 0.5, 1] })
    for (const value of [0.05, 0.1, 0.3, 0.7, 2, 3]) latency.observe({ route: '/a/:id' }, value)
    expect(samples(await registry.expose())).toEqual([
      'app_latency_seconds_bucket{route="/a/:id",le="0.1"} 2',
      'app_latency_seconds_bucket{route="/a/:id",le="0.5"} 3',
      'app_latency_seconds_bucket{route="/a/:id",le="1"} 4',
      'app_latency_seconds_bucket{route="/a/:id",le="+Inf"} 6',
      'app_latency_seconds_sum{route="/a/:id"} 6.15',
      'app_latency_seconds_count{route="/a/:id"} 6',
    ])
  })

  test('a value on a bound falls in that bucket (le is "less than or equal"); NaN is not recorded', async () => {
    const registry = createRegistry()
    const sizes = registry.histogram({ name: 'app_size_bytes', help: 'Sizes', buckets: [10, 100] })
    sizes.observe({}, 10)
    sizes.observe({}, NaN)
    expect(samples(await registry.expose())).toEqual(['app_size_bytes_bucket{le="10"} 1', 'app_size_bytes_bucket{le="100"} 1', 'app_size_bytes_bucket{le="+Inf"} 1', 'app_size_bytes_sum 10', 'app_size_bytes_count 1'])
  })

  test('buckets must be finite and increasing, and le is not a label of ours', () => {
    const registry = createRegistry()
    expect(() => registry.histogram({ name: 'a_seconds', help: 'x', buckets: [] })).toThrow()
    expect(() => registry.histogram({ name: 'b_seconds', help: 'x', buckets: [1, 1] })).toThrow()
    expect(() => registry.histogram({ name: 'c_seconds', help: 'x', buckets: [1, Infinity] })).toThrow()
    expect(() => registry.histogram({ name: 'd_seconds', help: 'x', labelNames: ['le'], buckets: [1] })).toThrow()
  })
})

describe('the registry', () => {
  test('counters only go up and are named ..._total', () => {
    const registry = createRegistry()
    expect(() => registry.counter({ name: 'app_requests', help: 'x' })).toThrow('_total')
    const counter = registry.counter({ name: 'app_requests_total', help: 'x' })
    expect(() => counter.inc({}, -1)).toThrow()
  })

  test('refuses names Prometheus would refuse, and a missing label', () => {
    const registry = createRegistry()
    expect(() => registry.gauge({ name: 'app-depth', help: 'x' })).toThrow()
    expect(() => registry.gauge({ name: 'app_depth', help: 'x', labelNames: ['__reserved'] })).toThrow()
    const depth = registry.gauge({ name: 'app_depth', help: 'x', labelNames: ['state'] })
    expect(() => depth.set({} as never, 1)).toThrow('state')
  })

  test('the same metric made twice is one metric; another definition under its name is refused', () => {
    const registry = createRegistry()
    const first = registry.counter({ name: 'app_sessions_total', help: 'x', labelNames: ['listener'] })
    expect(registry.counter({ name: 'app_sessions_total', help: 'x', labelNames: ['listener'] })).toBe(first)
    expect(() => registry.counter({ name: 'app_sessions_total', help: 'x', labelNames: ['result'] })).toThrow()
    expect(() => registry.gauge({ name: 'app_sessions_total', help: 'x', labelNames: ['listener'] })).toThrow()
  })

  test('a gauge with collect is read at each exposition, awaited; reset forgets series that are gone', async () => {
    const registry = createRegistry()
    let states: Record<string, number> = { queued: 2, deferred: 1 }
    registry.gauge({
      name: 'app_queue',
      help: 'Queue',
      labelNames: ['state'],
      async collect(gauge) {
        await Bun.sleep(1)
        gauge.reset()
        for (const [state, count] of Object.entries(states)) gauge.set({ state }, count)
      },
    })
    expect(samples(await registry.expose())).toEqual(['app_queue{state="queued"} 2', 'app_queue{state="deferred"} 1'])
    states = { queued: 5 }
    expect(samples(await registry.expose())).toEqual(['app_queue{state="queued"} 5'])
  })
})

describe('bounded labels', () => {
  test('keep the first values as they come and call every later one "other"', () => {
    const domain = boundedLabel(2)
    expect(['a.com', 'b.com', 'c.com', 'a.com', 'b.com', 'd.com'].map(domain)).toEqual(['a.com', 'b.com', 'other', 'a.com', 'b.com', 'other'])
  })
})
