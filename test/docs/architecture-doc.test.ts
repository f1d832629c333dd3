import assert from 'node:assert/strict'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { posix } from 'node:path'
import { describe, test } from 'node:test'

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

/** One row of ARCHITECTURE.md's layer table. */
interface Layer {
  name: string
  paths: string[]
  mayImport: Set<string>
  typesOnly: Set<string>
}

/** The layer table: the rows after the `<!-- layers … -->` marker, until the first line that is not a row. */
function layerTable(text: string): Layer[] {
  const lines = text.slice(text.indexOf('<!-- layers')).split('\n').slice(1)
  const rows = lines.slice(0, lines.findIndex((line) => !line.startsWith('|'))).slice(2)
  const names = (cell: string) => new Set(cell.split(',').map((name) => name.trim()).filter(Boolean))
  return rows.map((row) => {
    const [name, paths, mayImport, typesOnly] = row.split('|').slice(1, -1).map((cell) => cell.trim())
    return { name: name!, paths: [...paths!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), mayImport: names(mayImport!), typesOnly: names(typesOnly!) }
  })
}

/** The layer of a file of src/: the row with the longest path that is a prefix of it (or the file itself). */
function layerOf(layers: Layer[], file: string): Layer | undefined {
  let best: { layer: Layer; length: number } | undefined
  for (const layer of layers) {
    for (const path of layer.paths) {
      const matches = path.endsWith('/') ? file.startsWith(path) : file === path
      if (matches && (!best || path.length > best.length)) best = { layer, length: path.length }
    }
  }
  return best?.layer
}

/** Every relative import and re-export of a source text, and whether it brings in types only. */
function importsOf(text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const found: Array<{ specifier: string; typeOnly: boolean }> = []
  for (const m of text.matchAll(/^\s*(import|export)(\s+type)?\s[^'";]*?from\s+'([^']+)'/gm)) found.push({ specifier: m[3]!, typeOnly: Boolean(m[2]) })
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) found.push({ specifier: m[1]!, typeOnly: false })
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push({ specifier: m[1]!, typeOnly: false })
  return found.filter((i) => i.specifier.startsWith('.'))
}

/** The imports of `sources` (path → text) that run against the table, one line each. */
function layeringViolations(layers: Layer[], sources: Map<string, string>): string[] {
  const problems: string[] = []
  for (const [file, text] of sources) {
    const own = layerOf(layers, file)
    if (!own) {
      problems.push(`${file} is in no layer of the table`)
      continue
    }
    for (const { specifier, typeOnly } of importsOf(text)) {
      const target = posix.normalize(posix.join(posix.dirname(file), specifier))
      const theirs = layerOf(layers, target)
      if (!theirs || theirs === own || own.mayImport.has(theirs.name) || (typeOnly && own.typesOnly.has(theirs.name))) continue
      problems.push(`${file} (${own.name}) imports ${target} (${theirs.name})${own.typesOnly.has(theirs.name) ? ': types only' : ''}`)
    }
  }
  return problems
}

function sourcesUnder(folder: string): Map<string, string> {
  const sources = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(new URL(dir, ROOT), { withFileTypes: true })) {
      const path = `${dir}${entry.name}`
      if (entry.isDirectory()) walk(`${path}/`)
      else if (path.endsWith('.ts')) sources.set(path, readFileSync(new URL(path, ROOT), 'utf8'))
    }
  }
  walk(folder)
  return sources
}

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
    const observabilityCode = new Map([['src/observability/x.ts', "import { buildApp } from '../app.ts'"]])
    assert.deepEqual(layeringViolations(layers, observabilityCode), ['src/observability/x.ts (observability) imports src/app.ts (edge): types only'])
    const allowed = new Map([
      ['src/observability/x.ts', "import type { AppMetrics } from '../app.ts'"],
      ['src/cli/x.ts', "import { openStorage } from '../storage/index.ts'"],
      ['src/domain/x.ts', "import type { Stores } from '../storage/types.ts'"],
    ])
    assert.deepEqual(layeringViolations(layers, allowed), [])
  })

  test('a file outside every layer is named', () => {
    assert.deepEqual(layeringViolations(layers, new Map([['src/elsewhere.ts', '']])), ['src/elsewhere.ts is in no layer of the table'])
  })
})
