import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client'
import { CounterSeriesTable, SeriesHistogram } from '../../src/observability/series.ts'
import { everySample, seriesKey } from '../helpers/prometheus-text.ts'

/**
 * The cheap series (src/observability/series.ts) must scrape exactly as prom-client's own metrics
 * would for the same updates: prom-client's Histogram and Counter are the oracle.
 */

const BOUNDS = [0.001, 0.01, 0.1, 1]
// Below, on and above each bound, and far above the last; in two series.
const OBSERVED: Array<[string, string, number]> = [
  ['/a', 'GET', 0.0005],
  ['/a', 'GET', 0.001],
  ['/a', 'GET', 0.0011],
  ['/a', 'GET', 0.01],
  ['/a', 'GET', 0.5],
  ['/a', 'GET', 1],
  ['/a', 'GET', 7],
  ['/b', 'POST', 0.05],
  ['/b', 'POST', 0.05],
  ['/a', 'GET', 0],
]

const samples = async (registry: { metrics(): Promise<string> }) => everySample(await registry.metrics())

describe('metric series', () => {
  test('a series histogram scrapes the same buckets, sums and counts as a prom-client histogram fed the same values', async () => {
    const ours = new Registry()
    const theirs = new Registry()
    const histogram = new SeriesHistogram(ours, 'h_seconds', 'help text', ['route', 'method'], BOUNDS)
    const oracle = new Histogram({ name: 'h_seconds', help: 'help text', labelNames: ['route', 'method'], buckets: BOUNDS, registers: [theirs] })
    for (const [route, method, value] of OBSERVED) {
      histogram.series([route, method]).observe(value)
      oracle.observe({ route, method }, value)
    }
    const got = await samples(ours)
    assert.equal(got.get(seriesKey('h_seconds_bucket', { le: '0.001', route: '/a', method: 'GET' })), 3)
    assert.equal(got.get(seriesKey('h_seconds_count', { route: '/b', method: 'POST' })), 2)
    assert.deepEqual(got, await samples(theirs))
    assert.match(await ours.metrics(), /^# HELP h_seconds help text\n# TYPE h_seconds histogram\n/)
  })

  test('a histogram without labels shows its zero series before any observation, as prom-client does', async () => {
    const ours = new Registry()
    const theirs = new Registry()
    new SeriesHistogram(ours, 'skew', 'help', [], BOUNDS).series([])
    new Histogram({ name: 'skew', help: 'help', buckets: BOUNDS, registers: [theirs] })
    assert.deepEqual(await samples(ours), await samples(theirs))
    assert.equal((await samples(ours)).get(seriesKey('skew_count')), 0)
  })

  test('buckets that do not increase are refused', () => {
    assert.throws(() => new SeriesHistogram(new Registry(), 'x', 'help', [], [1, 1]), /buckets must increase/)
  })

  test('counter series reach the prom-client counter at each scrape, counted once, a used series shown at 0 before its first count', async () => {
    const registry = new Registry()
    const counter: Counter<'result'> = new Counter({ name: 'c_total', help: 'help', labelNames: ['result'], registers: [registry], collect: () => table.flush() })
    const table = new CounterSeriesTable(counter, ['result'])
    const ok = table.series(['ok'])
    table.series(['malformed'])
    assert.deepEqual(await samples(registry), new Map([[seriesKey('c_total', { result: 'ok' }), 0], [seriesKey('c_total', { result: 'malformed' }), 0]]))
    ok.inc()
    ok.inc()
    table.series(['bad']).inc()
    const first = await samples(registry)
    assert.equal(first.get(seriesKey('c_total', { result: 'ok' })), 2)
    assert.equal(first.get(seriesKey('c_total', { result: 'bad' })), 1)
    // A second scrape with nothing new counts nothing twice.
    assert.deepEqual(await samples(registry), first)
    table.series(['ok']).inc()
    assert.equal((await samples(registry)).get(seriesKey('c_total', { result: 'ok' })), 3)
  })

  test('the workers of --workers aggregate: their histogram series add up', async () => {
    const workers = [new Registry(), new Registry()]
    workers.forEach((registry, i) => {
      const histogram = new SeriesHistogram(registry, 'h_seconds', 'help', ['route'], BOUNDS)
      for (let n = 0; n <= i; n++) histogram.series(['/a']).observe(0.05)
    })
    const aggregated = AggregatorRegistry.aggregate(await Promise.all(workers.map((registry) => registry.getMetricsAsJSON())))
    const got = await samples(aggregated)
    assert.equal(got.get(seriesKey('h_seconds_count', { route: '/a' })), 3)
    assert.equal(got.get(seriesKey('h_seconds_bucket', { le: '0.1', route: '/a' })), 3)
    assert.equal(got.get(seriesKey('h_seconds_bucket', { le: '0.01', route: '/a' })), 0)
    assert.ok(Math.abs(got.get(seriesKey('h_seconds_sum', { route: '/a' }))! - 0.15) < 1e-9)
  })

  test('label values that run together differently stay apart: ("ab", "c") is not ("a", "bc")', async () => {
    const ours = new Registry()
    const theirs = new Registry()
    const histogram = new SeriesHistogram(ours, 'h_seconds', 'help', ['route', 'method'], BOUNDS)
    const oracle = new Histogram({ name: 'h_seconds', help: 'help', labelNames: ['route', 'method'], buckets: BOUNDS, registers: [theirs] })
    for (const [route, method] of [['ab', 'c'], ['a', 'bc']] as const) {
      histogram.series([route, method]).observe(0.05)
      oracle.observe({ route, method }, 0.05)
    }
    const got = await samples(ours)
    assert.equal(got.get(seriesKey('h_seconds_count', { route: 'ab', method: 'c' })), 1)
    assert.equal(got.get(seriesKey('h_seconds_count', { route: 'a', method: 'bc' })), 1)
    assert.deepEqual(got, await samples(theirs))
  })

  test("a registry's resetMetrics() empties the series, as it does prom-client's own", async () => {
    const ours = new Registry()
    const theirs = new Registry()
    new SeriesHistogram(ours, 'h_seconds', 'help', ['route'], BOUNDS).series(['/a']).observe(0.05)
    new Histogram({ name: 'h_seconds', help: 'help', labelNames: ['route'], buckets: BOUNDS, registers: [theirs] }).observe({ route: '/a' }, 0.05)
    ours.resetMetrics()
    theirs.resetMetrics()
    assert.deepEqual(await samples(ours), await samples(theirs))
    assert.equal((await samples(ours)).get(seriesKey('h_seconds_count', { route: '/a' })), undefined)
  })
})
