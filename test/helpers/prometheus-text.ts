import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

/** One metric family as parse-prometheus-text-format gives it (values are strings, as in the text). */
export interface MetricFamily {
  name: string
  help: string
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
  metrics: Array<{ labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string }>
}

// An independent parser of the Prometheus text format (CommonJS, without types of its own).
const parsePrometheusText = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => MetricFamily[]

/** The scrape parsed: every family by name. Throws when the text is not the Prometheus format. */
export function parseScrape(text: string): Map<string, MetricFamily> {
  const families = parsePrometheusText(text)
  assert.ok(families.length > 0, 'the scrape has metrics')
  return new Map(families.map((family) => [family.name, family]))
}

/**
 * Histogram series with their labels: `name_count` and `name_sum` by series key. The parser merges a
 * histogram's labelled series into one (it drops their labels), so this reads a copy of the text in
 * which histograms are declared untyped: each of _bucket, _sum and _count is then a family of its own.
 */
export function histogramSeries(text: string): Map<string, number> {
  return new Map([...everySample(text)].filter(([key]) => /^[^{]*_(count|sum)\{/.test(key)))
}

/** Every sample of the text (a histogram's _bucket, _sum and _count each a series), by series key. */
export function everySample(text: string): Map<string, number> {
  const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped')
  const values = new Map<string, number>()
  for (const family of parsePrometheusText(untyped)) {
    for (const metric of family.metrics) values.set(seriesKey(family.name, metric.labels), Number(metric.value))
  }
  return values
}

/** A series key: the family name and its labels, sorted (e.g. a_total{x="1",y="2"}). */
export function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((key) => `${key}="${labels[key]}"`)
  return `${name}{${pairs.join(',')}}`
}

/** Every counter series of the families whose name starts with `prefix`, by series key. */
export function counterValues(families: Map<string, MetricFamily>, prefix: string): Map<string, number> {
  const values = new Map<string, number>()
  for (const family of families.values()) {
    if (family.type !== 'COUNTER' || !family.name.startsWith(prefix)) continue
    for (const metric of family.metrics) values.set(seriesKey(family.name, metric.labels), Number(metric.value))
  }
  return values
}

/** What moved between two readings (series absent before count from 0), zero changes left out. */
export function deltas(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const moved: Record<string, number> = {}
  for (const [key, value] of after) {
    const change = value - (before.get(key) ?? 0)
    if (change !== 0) moved[key] = change
  }
  return moved
}
