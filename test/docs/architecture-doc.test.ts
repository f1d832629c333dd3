import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { layerTable, layeringViolations, sourcesUnder } from './layer-table.ts'

const ROOT = new URL('../../', import.meta.url)
const doc = readFileSync(new URL('ARCHITECTURE.md', ROOT), 'utf8')

/** Every backticked path of the repository the map names: `src/…`, `test/…`, `docs/…`, `bench/…`, or a root file. */
function namedPaths(text: string): string[] {
  const paths = new Set<string>()
  for (const [, quoted] of text.matchAll(/`([^`\s]+)`/g)) {
    const path = quoted!.replace(/[.,:;]$/, '')
    if (/^(src|test|docs|bench|scripts|examples)\//.test(path) || /^[\w.-]+\.(md|js|json)$/.test(path)) paths.add(path)
  }
  return [...paths]
}

test('every file and folder ARCHITECTURE.md names exists', () => {
  const paths = namedPaths(doc)
  assert.ok(paths.length >= 40, `the map names ${paths.length} paths: the pattern above no longer finds them`)
  const missing = paths.filter((path) => !existsSync(new URL(path, ROOT)))
  assert.deepEqual(missing, [], 'ARCHITECTURE.md names paths that do not exist: update the map')
})

test('a missing path is caught', () => {
  assert.deepEqual(namedPaths('see `src/no/such-file.ts`, `README.md` and `npm test`'), ['src/no/such-file.ts', 'README.md'])
  assert.equal(existsSync(new URL('src/no/such-file.ts', ROOT)), false)
})

test('ARCHITECTURE.md stays under 300 lines', () => {
  assert.ok(doc.split('\n').length < 300)
})

describe('the layer table of ARCHITECTURE.md', () => {
  const layers = layerTable(doc)

  test('names every layer it allows, and only those', () => {
    assert.ok(layers.length >= 10, `the table has ${layers.length} rows: the parser no longer finds it`)
    const names = new Set(layers.map((layer) => layer.name))
    const unknown = layers.flatMap((layer) => [...layer.mayImport, ...layer.typesOnly].filter((name) => !names.has(name)).map((name) => `${layer.name} → ${name}`))
    assert.deepEqual(unknown, [])
  })

  test('every import in src/ runs the way the table allows', () => {
    const sources = sourcesUnder('src/')
    assert.ok(sources.size > 100, `found ${sources.size} files under src/`)
    assert.deepEqual(layeringViolations(layers, sources), [])
  })

  test('an import that runs the other way is caught, and its allowed twin is not', () => {
    const domainToEdge = new Map([['src/domain/x.ts', "import { buildApp } from '../app.ts'\nimport type { Stores } from '../storage/types.ts'"]])
    assert.deepEqual(layeringViolations(layers, domainToEdge), ['src/domain/x.ts (domain) imports src/app.ts (edge)'])
    const oauth1ToOauth2 = new Map([['src/domain/oauth1/x.ts', "export { a } from '../oauth2/y.ts'"]])
    assert.deepEqual(layeringViolations(layers, oauth1ToOauth2), ['src/domain/oauth1/x.ts (oauth1) imports src/domain/oauth2/y.ts (oauth2)'])
    const upward = new Map([
      ['src/domain/oauth2/x.ts', "import { findUserTokenHolder } from '../oauth2-user/user-token.ts'"],
      ['src/domain/oauth1/x.ts', "import { withFailureLog } from '../console/signature-failures.ts'"],
    ])
    assert.deepEqual(layeringViolations(layers, upward), [
      'src/domain/oauth2/x.ts (oauth2) imports src/domain/oauth2-user/user-token.ts (oauth2-user)',
      'src/domain/oauth1/x.ts (oauth1) imports src/domain/console/signature-failures.ts (console)',
    ])
    const adapterFromCli = new Map([['src/cli/x.ts', "const m = await import('../storage/sql/lookups.ts')"]])
    assert.deepEqual(layeringViolations(layers, adapterFromCli), ['src/cli/x.ts (entry) imports src/storage/sql/lookups.ts (storage-adapters)'])
    // Observability is wired in by the composition root: it names nothing of the app's, not even a type.
    const observabilityCode = new Map([['src/observability/x.ts', "import type { AppMetrics } from '../app.ts'"]])
    assert.deepEqual(layeringViolations(layers, observabilityCode), ['src/observability/x.ts (observability) imports src/app.ts (edge)'])
    const allowed = new Map([
      ['src/composition/x.ts', "import { buildApp } from '../app.ts'"],
      ['src/cli/x.ts', "import { openStorage } from '../storage/index.ts'"],
      ['src/domain/x.ts', "import type { Stores } from '../storage/types.ts'"],
    ])
    assert.deepEqual(layeringViolations(layers, allowed), [])
  })

  test('a row may import a layer for its types only', () => {
    const table = layerTable(
      ['<!-- layers -->', '| layer | paths | may import | types only |', '| --- | --- | --- | --- |', '| low | `src/low/` | | high |', '| high | `src/high/` | low | |', ''].join('\n'),
    )
    const typeImport = new Map([['src/low/x.ts', "import type { A } from '../high/a.ts'"]])
    assert.deepEqual(layeringViolations(table, typeImport), [])
    const valueImport = new Map([['src/low/x.ts', "import { a } from '../high/a.ts'"]])
    assert.deepEqual(layeringViolations(table, valueImport), ['src/low/x.ts (low) imports src/high/a.ts (high): types only'])
  })

  test('a file outside every layer is named', () => {
    assert.deepEqual(layeringViolations(layers, new Map([['src/elsewhere.ts', '']])), ['src/elsewhere.ts is in no layer of the table'])
  })
})
