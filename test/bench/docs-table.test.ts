import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import type { LoadResult } from '../../bench/load.ts'
import { summarize } from '../../bench/measure.ts'
import { DOCS_MARKERS, markdownTable, replaceDocsTable, type RunContext } from '../../bench/report.ts'
import type { ShapeId } from '../../bench/shapes.ts'

const [BEGIN, END] = DOCS_MARKERS

const load = (rps: number, cpuUs: number, p99Ms: number): LoadResult => ({
  requests: rps * 5, seconds: 5, rps, p50Ms: p99Ms / 2, p99Ms, errors: 0, serverCpuUsPerRequest: cpuUs, serverSystemUsPerRequest: cpuUs / 4, serverCpuPercent: 99, clientCpuPercent: 60,
})

const context: RunContext = { commit: 'abc1234', at: '2026-11-27T19:20:31.000Z', cores: 2, loadAverage: 0.21, server: 'tsx', duration: 5, warmup: 1, repeat: 1, connections: 32, pinned: true }

describe('the docs table of npm run bench -- --write-docs', () => {
  test('gives each measured shape its ratios, the ceiling first, under a caption that says where and how, with no date', () => {
    const results = new Map<ShapeId, ReturnType<typeof summarize>>([['1', summarize([{ ceiling: load(40_000, 20, 2), latchkey: load(6_000, 150, 8) }])]])
    const lines = markdownTable(results, undefined, context).split('\n')
    assert.equal(lines[0], 'Measured on a 2-core machine (load average 0.21 at the start), `--server tsx`, 1 pairs of 1 + 5 s per shape, 32 connections, server and load generator each pinned to a core.')
    assert.match(lines[2]!, /^\| shape \| what \| req\/s \| ×ceiling \|/)
    assert.match(lines[4]!, /^\| ceil \| bare node:http .* \| 40000 \| 1\.000 \|/)
    assert.match(lines[5]!, /^\| 1 \| verify_credentials, OAuth 1\.0a, SQLite \| 6000 \| 0\.150 \| 0\.133 \| .* \| 150 \| ≥0\.22, p99≤4× \| NO \|$/)
    assert.equal(lines.length, 6)
    const withSteal = markdownTable(results, undefined, { ...context, stealPercent: 1.25 }).split('\n')[0]
    assert.match(withSteal!, /^Measured on a 2-core machine \(load average 0\.21 at the start, 1\.3 % of CPU time stolen during the run\), `--server tsx`/)
  })

  test('gives the Redis commands per request of the PostgreSQL + Redis shapes, against the target of one', () => {
    const results = new Map<ShapeId, ReturnType<typeof summarize>>([['6.1', summarize([{ ceiling: load(40_000, 20, 2), latchkey: load(6_000, 150, 8) }])]])
    const lines = markdownTable(results, undefined, { ...context, redisCommands: { '6.1': 1, '6.2': 1.5 } }).split('\n')
    assert.equal(lines[6], '| redis 6.1 | Redis commands per request of (6.1) |  | 1.00 |  |  |  |  |  | 1 | yes |')
    assert.equal(lines[7], '| redis 6.2 | Redis commands per request of (6.2) |  | 1.50 |  |  |  |  |  | 1 | NO |')
  })

  test('replaces only what lies between the markers', () => {
    const doc = `# Performance\n\nbefore\n${BEGIN}\n\nold table\n\n${END}\nafter\n`
    assert.equal(replaceDocsTable(doc, 'new table'), `# Performance\n\nbefore\n${BEGIN}\n\nnew table\n\n${END}\nafter\n`)
    assert.equal(replaceDocsTable(replaceDocsTable(doc, 'new table'), 'new table'), replaceDocsTable(doc, 'new table'))
  })

  test('refuses a document without both markers once each, in order', () => {
    for (const doc of [`${BEGIN}\n`, `${END}\n${BEGIN}\n`, `${BEGIN}\n${BEGIN}\n${END}\n`, 'no markers']) {
      assert.throws(() => replaceDocsTable(doc, 'x'), /must hold the lines/)
    }
  })

  test('docs/performance.md holds the markers', () => {
    const doc = readFileSync(new URL('../../docs/performance.md', import.meta.url), 'utf8')
    assert.doesNotThrow(() => replaceDocsTable(doc, 'x'))
  })
})
