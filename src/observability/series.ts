import type { Counter, Histogram, MetricValueWithName, Registry } from 'prom-client'

/**
 * Metric series that cost a request a few additions. prom-client 15 turns the label values into a
 * string key on every `inc()` and `observe()` (its bound `labels()` children too), a cost every
 * request would pay (bench shapes 0–3 measure it). Here each
 * series is found once when the caller that updates it is built, or by one Map read of its label
 * values joined, and then updated with plain arithmetic. prom-client still owns the registry and the text
 * format. Counters stay prom-client counters: the counts are added to them at each scrape, in their
 * `collect()`. Histograms are a metric object that the registry reads like its own (the same
 * `get()` shape, the `sum` aggregator for --workers).
 */

/**
 * A histogram as the registry reads it from `get()` (prom-client's runtime shape: its typings give
 * `type` as an enum, while the registry writes the string into the text).
 */
interface HistogramReading {
  name: string
  help: string
  type: 'histogram'
  aggregator: 'sum'
  values: MetricValueWithName<string>[]
}

/** One histogram series: its label values fixed, its observations counted per bucket. */
export interface HistogramSeries {
  observe(value: number): void
}

/** One counter series. */
export interface CounterSeries {
  inc(): void
}

/**
 * The series of `labels`, made on first use and kept. A label value is a fixed word or a route
 * pattern (the callers' contract), so the number of series stays small.
 */
class SeriesTable<S> {
  private readonly byKey = new Map<string, { labels: Record<string, string>; series: S }>()

  constructor(
    private readonly labelNames: readonly string[],
    private readonly make: (labels: Record<string, string>) => S,
  ) {}

  series(values: readonly string[]): S {
    // A NUL cannot occur in a label value we use (route patterns and fixed words).
    const key = values.join('\u0000')
    let entry = this.byKey.get(key)
    if (!entry) {
      const labels = Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]!]))
      entry = { labels, series: this.make(labels) }
      this.byKey.set(key, entry)
    }
    return entry.series
  }

  entries(): IterableIterator<{ labels: Record<string, string>; series: S }> {
    return this.byKey.values()
  }

  clear(): void {
    this.byKey.clear()
  }
}

class BucketCounts implements HistogramSeries {
  /** counts[i]: observations in (bounds[i-1], bounds[i]]; the last one, above every bound. */
  readonly counts: number[]
  sum = 0
  count = 0

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0)
  }

  observe(value: number): void {
    let i = 0
    while (i < this.bounds.length && value > this.bounds[i]!) i++
    this.counts[i]!++
    this.sum += value
    this.count++
  }
}

/**
 * A Prometheus histogram whose series are looked up by the caller (`series([...values])`, in the
 * order of `labelNames`) and kept. Registered in `registry` under `name`.
 */
export class SeriesHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly table: SeriesTable<BucketCounts>

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {
    if (bounds.some((bound, i) => i > 0 && bound <= bounds[i - 1]!)) throw new Error(`${name}: buckets must increase`)
    this.table = new SeriesTable(labelNames, () => new BucketCounts(bounds))
    // The registry's own metric classes are not the only thing it reads: it calls get() and reset().
    registry.registerMetric(this as unknown as Histogram)
  }

  series(values: readonly string[]): HistogramSeries {
    return this.table.series(values)
  }

  /** The series in prom-client's shape: cumulative `_bucket` values with `le`, then `_sum` and `_count`. */
  get(): Promise<HistogramReading> {
    const values: MetricValueWithName<string>[] = []
    for (const { labels, series } of this.table.entries()) {
      let cumulative = 0
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...labels }, value: cumulative })
      })
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: series.count })
      values.push({ metricName: `${this.name}_sum`, labels: { ...labels }, value: series.sum })
      values.push({ metricName: `${this.name}_count`, labels: { ...labels }, value: series.count })
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator })
  }

  reset(): void {
    this.table.clear()
  }
}

class Count implements CounterSeries {
  /** Counted since the last scrape handed the counts to the prom-client counter. */
  pending = 0
  inc(): void {
    this.pending++
  }
}

/**
 * The series of a prom-client counter, counted here and added to the counter at each scrape (its
 * `collect()`), so that an increment on a request's path is one addition.
 */
export class CounterSeriesTable<L extends string> {
  private readonly table: SeriesTable<Count>

  constructor(
    private readonly counter: Counter<L>,
    labelNames: readonly L[],
  ) {
    // The counter shows the series (at 0) from its first use, as prom-client's own inc(labels, 0) would.
    this.table = new SeriesTable(labelNames, (labels) => {
      counter.inc(labels as Partial<Record<L, string>>, 0)
      return new Count()
    })
  }

  series(values: readonly string[]): CounterSeries {
    return this.table.series(values)
  }

  /** Hands the counts to the counter; called by its collect(). */
  flush(): void {
    for (const { labels, series } of this.table.entries()) {
      if (series.pending === 0) continue
      this.counter.inc(labels as Partial<Record<L, string>>, series.pending)
      series.pending = 0
    }
  }
}
