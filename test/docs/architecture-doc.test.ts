import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { test } from 'node:test'

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
