/**
 * A small metrics registry that writes the Prometheus text exposition format, version 0.0.4:
 * counters, gauges and histograms with labels. Recording is one Map lookup and an addition, cheap
 * enough for the hottest request path; formatting waits until the page is read.
 */

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

export type LabelValues<L extends string> = { readonly [K in L]: string }

export interface MetricOptions<L extends string> {
  name: string
  help: string
  labelNames?: readonly L[]
}

export interface GaugeOptions<L extends string> extends MetricOptions<L> {
  /** Runs before each exposition: for values read when they are asked for (a count, the RSS). */
  collect?: (gauge: Gauge<L>) => void | Promise<void>
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds, increasing; +Inf is added. */
  buckets: readonly number[]
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
/** Joins label values into a series key: no label value has any business holding it. */
const SEPARATOR = '\u0000'

abstract class Metric<L extends string, S> {
  abstract readonly type: 'counter' | 'gauge' | 'histogram'
  protected readonly series = new Map<string, { values: string[]; data: S }>()
  readonly name: string
  readonly help: string
  readonly labelNames: readonly L[]

  constructor(options: MetricOptions<L>) {
    this.name = options.name
    this.help = options.help
    this.labelNames = options.labelNames ?? []
    if (!METRIC_NAME.test(this.name)) throw new Error(`Metric name ${JSON.stringify(this.name)} is not allowed`)
    for (const label of this.labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`Label name ${JSON.stringify(label)} of ${this.name} is not allowed`)
    }
  }

  protected abstract empty(): S

  protected seriesOf(labels: LabelValues<L>): S {
    let key = ''
    for (const name of this.labelNames) {
      const value = labels[name]
      if (typeof value !== 'string') throw new Error(`Metric ${this.name} needs the label ${name}`)
      key += value + SEPARATOR
    }
    let entry = this.series.get(key)
    if (!entry) {
      entry = { values: this.labelNames.map((name) => labels[name]), data: this.empty() }
      this.series.set(key, entry)
    }
    return entry.data
  }

  /** Forgets every series (a gauge whose label values come and go). */
  reset(): void {
    this.series.clear()
  }

  sameAs(other: Metric<string, unknown>): boolean {
    return other.type === this.type && other.labelNames.join() === this.labelNames.join()
  }

  lines(): string[] {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`]
    for (const { values, data } of this.series.values()) this.write(lines, values, data)
    // A metric without labels shows its zero before anything happens, as Prometheus clients do:
    // a series that appears only with its first event makes rate() miss that event.
    if (this.labelNames.length === 0 && this.series.size === 0) this.write(lines, [], this.empty())
    return lines
  }

  protected abstract write(lines: string[], values: string[], data: S): void
}

/** A metric whose series each hold one number. */
abstract class Scalar<L extends string> extends Metric<L, { value: number }> {
  protected empty() {
    return { value: 0 }
  }

  protected write(lines: string[], values: string[], data: { value: number }) {
    lines.push(`${this.name}${labelText(this.labelNames, values)} ${formatNumber(data.value)}`)
  }
}

export class Counter<L extends string = never> extends Scalar<L> {
  readonly type = 'counter'

  constructor(options: MetricOptions<L>) {
    super(options)
    if (!options.name.endsWith('_total')) throw new Error(`Counter ${options.name} should end in _total`)
  }

  inc(labels: LabelValues<L>, by = 1): void {
    if (!(by >= 0)) throw new Error(`Counter ${this.name} can only go up (by ${by})`)
    this.seriesOf(labels).value += by
  }
}

export class Gauge<L extends string = never> extends Scalar<L> {
  readonly type = 'gauge'
  readonly collect: (() => void | Promise<void>) | undefined

  constructor(options: GaugeOptions<L>) {
    super(options)
    const collect = options.collect
    this.collect = collect && (() => collect(this))
  }

  set(labels: LabelValues<L>, value: number): void {
    this.seriesOf(labels).value = value
  }

  inc(labels: LabelValues<L>, by = 1): void {
    this.seriesOf(labels).value += by
  }
}

interface HistogramData {
  /** Per bucket, not cumulative (the last is +Inf): the exposition adds them up. */
  counts: number[]
  sum: number
  count: number
}

export class Histogram<L extends string = never> extends Metric<L, HistogramData> {
  readonly type = 'histogram'
  readonly buckets: readonly number[]

  constructor(options: HistogramOptions<L>) {
    const { buckets } = options
    if (buckets.length === 0 || buckets.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= buckets[i - 1]!))) {
      throw new Error(`Histogram ${options.name} needs finite, increasing buckets`)
    }
    if (options.labelNames?.includes('le' as L)) throw new Error(`Histogram ${options.name} cannot have a label le`)
    super(options)
    this.buckets = [...buckets]
  }

  protected empty(): HistogramData {
    return { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 }
  }

  observe(labels: LabelValues<L>, value: number): void {
    if (Number.isNaN(value)) return
    const data = this.seriesOf(labels)
    let i = 0
    while (i < this.buckets.length && value > this.buckets[i]!) i++
    data.counts[i]!++
    data.sum += value
    data.count++
  }

  override sameAs(other: Metric<string, unknown>): boolean {
    return super.sameAs(other) && (other as Histogram<string>).buckets.join() === this.buckets.join()
  }

  protected write(lines: string[], values: string[], data: HistogramData) {
    const pairs = labelPairs(this.labelNames, values)
    const before = pairs === '' ? '{' : `{${pairs},`
    let cumulative = 0
    for (let i = 0; i <= this.buckets.length; i++) {
      cumulative += data.counts[i]!
      const le = i < this.buckets.length ? formatNumber(this.buckets[i]!) : '+Inf'
      lines.push(`${this.name}_bucket${before}le="${le}"} ${cumulative}`)
    }
    const labels = pairs === '' ? '' : `{${pairs}}`
    lines.push(`${this.name}_sum${labels} ${formatNumber(data.sum)}`, `${this.name}_count${labels} ${data.count}`)
  }
}

type AnyMetric = Counter<string> | Gauge<string> | Histogram<string>

/** The metrics of one process, in the order they were made. */
export class Registry {
  readonly #metrics = new Map<string, AnyMetric>()

  counter<L extends string = never>(options: MetricOptions<L>): Counter<L> {
    return this.#add(new Counter(options))
  }

  gauge<L extends string = never>(options: GaugeOptions<L>): Gauge<L> {
    return this.#add(new Gauge(options))
  }

  histogram<L extends string = never>(options: HistogramOptions<L>): Histogram<L> {
    return this.#add(new Histogram(options))
  }

  /** The same metric made twice (two listeners of one kind) is one metric; a clash is a mistake. */
  #add<M extends AnyMetric>(metric: M): M {
    const known = this.#metrics.get(metric.name)
    if (known && !known.sameAs(metric)) throw new Error(`Metric ${metric.name} is already defined differently`)
    if (known) return known as M
    this.#metrics.set(metric.name, metric)
    return metric
  }

  /** The exposition: collects what is read on demand, then writes every metric. */
  async expose(): Promise<string> {
    const metrics = [...this.#metrics.values()]
    await Promise.all(metrics.map((metric) => (metric instanceof Gauge ? metric.collect?.() : undefined)))
    return metrics.flatMap((metric) => metric.lines()).join('\n') + '\n'
  }
}

export const createRegistry = () => new Registry()

/**
 * Bounds a label's cardinality: the first `limit` distinct values are kept as they come, any later
 * one is `other`. For values that callers choose (destination domains), which would otherwise
 * grow the page and Prometheus's memory without end.
 */
export function boundedLabel(limit: number, other = 'other'): (value: string) => string {
  const kept = new Set<string>()
  return (value) => {
    if (kept.has(value)) return value
    if (kept.size >= limit) return other
    kept.add(value)
    return value
  }
}

const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')

export const escapeLabelValue = (text: string) => text.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))

const labelPairs = (names: readonly string[], values: readonly string[]) => names.map((name, i) => `${name}="${escapeLabelValue(values[i]!)}"`).join(',')

const labelText = (names: readonly string[], values: readonly string[]) => (names.length === 0 ? '' : `{${labelPairs(names, values)}}`)

export function formatNumber(value: number): string {
  if (value === Infinity) return '+Inf'
  if (value === -Infinity) return '-Inf'
  return String(value)
}
