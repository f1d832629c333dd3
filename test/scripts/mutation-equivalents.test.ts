// scripts/mutation-score.mjs subtracts the accepted equivalent mutants of scripts/mutation-equivalents.json
// from a folder's survivors. An entry names a mutant by file, mutator, the source text it replaces and
// its replacement, never by line: the same mutant matches wherever the code around it moved, and a
// mutant that differs in any of those is not accepted (it would hide a rule without a test).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { equivalentOf, mutantText, readEquivalents, type EquivalentEntry, type ReportedMutant } from '../../scripts/mutation-equivalents.mjs'

const FILE = 'src/protocol/form.ts'
const ENTRY: EquivalentEntry = {
  file: FILE,
  reason: 'the fast path for an empty body',
  mutants: [
    ['ConditionalExpression', "text === ''", 'false'],
    ['StringLiteral', "''", '"Stryker was here!"', "text === ''"],
  ],
}

/** A Stryker report's mutant of `source`: the first occurrence of `original` on or after line `fromLine` (lines and columns count from 1). */
function mutantOf(source: string, original: string, mutatorName: string, replacement: string, fromLine = 1): ReportedMutant {
  const lines = source.split('\n')
  for (let i = fromLine - 1; i < lines.length; i++) {
    const column = lines[i]!.indexOf(original)
    if (column !== -1) return { mutatorName, replacement, location: { start: { line: i + 1, column: column + 1 }, end: { line: i + 1, column: column + 1 + original.length } } }
  }
  throw new Error(`${original} is not in the source`)
}

const SOURCE = "export function parse(text: string) {\n  if (text === '') return []\n  const empty = ''\n  return text.split('&')\n}\n"

describe('which survivors the accepted list matches', () => {
  test('a mutant matches by file, mutator, original and replacement, whatever its line', () => {
    const mutant = mutantOf(SOURCE, "text === ''", 'ConditionalExpression', 'false')
    assert.equal(equivalentOf([ENTRY], FILE, SOURCE, mutant), ENTRY)
    // The same code three lines further down (the file changed above it) is the same mutant.
    const moved = `// one\n// two\n// three\n${SOURCE}`
    assert.equal(equivalentOf([ENTRY], FILE, moved, mutantOf(moved, "text === ''", 'ConditionalExpression', 'false')), ENTRY)
  })

  test('a mutant that differs in its file, mutator, original or replacement is not accepted', () => {
    assert.equal(equivalentOf([ENTRY], 'src/protocol/secrets.ts', SOURCE, mutantOf(SOURCE, "text === ''", 'ConditionalExpression', 'false')), undefined)
    assert.equal(equivalentOf([ENTRY], FILE, SOURCE, mutantOf(SOURCE, "text === ''", 'EqualityOperator', 'false')), undefined)
    assert.equal(equivalentOf([ENTRY], FILE, SOURCE, mutantOf(SOURCE, "text === ''", 'ConditionalExpression', 'true')), undefined)
    assert.equal(equivalentOf([ENTRY], FILE, SOURCE, mutantOf(SOURCE, "text.split('&')", 'ConditionalExpression', 'false')), undefined)
  })

  test('`within` accepts the change only on a line that holds its text', () => {
    const onGuard = mutantOf(SOURCE, "''", 'StringLiteral', '"Stryker was here!"')
    assert.equal(equivalentOf([ENTRY], FILE, SOURCE, onGuard), ENTRY)
    const elsewhere = mutantOf(SOURCE, "''", 'StringLiteral', '"Stryker was here!"', 3)
    assert.equal(elsewhere.location.start.line, 3)
    assert.equal(equivalentOf([ENTRY], FILE, SOURCE, elsewhere), undefined)
  })

  test('whitespace runs read as one space, in the source and in the replacement', () => {
    const source = 'const ok = a &&\n    b\n'
    const mutant: ReportedMutant = { mutatorName: 'LogicalOperator', replacement: 'a ||\n  b', location: { start: { line: 1, column: 12 }, end: { line: 2, column: 6 } } }
    assert.deepEqual(mutantText(source, mutant.location), { original: 'a &&\n    b', line: 'const ok = a &&' })
    const entry: EquivalentEntry = { file: FILE, reason: 'r', mutants: [['LogicalOperator', 'a && b', 'a || b']] }
    assert.equal(equivalentOf([entry], FILE, source, mutant), entry)
  })

  test('every accepted entry names a source file, a reason and its mutants as [mutator, original, replacement, within?]', () => {
    // The path from here: tests run bundled, where the script's own import.meta.url is the bundle's.
    const entries = readEquivalents(new URL('../../scripts/mutation-equivalents.json', import.meta.url))
    assert.ok(entries.length > 100, `${entries.length} entries`)
    for (const entry of entries) {
      assert.match(entry.file, /^src\/.+\.ts$/, entry.file)
      assert.ok(entry.reason.length > 10, `${entry.file}: a reason`)
      assert.ok(entry.mutants.length > 0, `${entry.file}: ${entry.reason}`)
      for (const key of entry.mutants) {
        assert.ok(key.length === 3 || key.length === 4, `${entry.file}: ${JSON.stringify(key)}`)
        assert.ok(key.every((part) => typeof part === 'string' && part.length > 0), `${entry.file}: ${JSON.stringify(key)}`)
      }
    }
  })
})
