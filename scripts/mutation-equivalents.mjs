// The accepted equivalent mutants (scripts/mutation-equivalents.json): survivors that cannot change
// what a client or an operator sees, each with its reason. A mutant is named by what survives a
// change of the code around it: its file, Stryker's mutator name, the source text it replaces and
// the text it puts instead (whitespace runs read as one space), never by its line. An entry may add
// `within`, a text the mutant's first line must hold, when the same change is made in several
// places of a file and only some of them are equivalent. scripts/mutation-score.mjs reads it.
import { readFileSync } from 'node:fs'

export const EQUIVALENTS_FILE = new URL('./mutation-equivalents.json', import.meta.url)

const squash = (text) => text.replace(/\s+/g, ' ').trim()

/** The accepted entries: { file, reason, mutants: [[mutator, original, replacement, within?], …] }. */
export function readEquivalents(path = EQUIVALENTS_FILE) {
  return JSON.parse(readFileSync(path, 'utf8')).entries
}

/**
 * What a report's mutant replaces and the line it starts on, from the file's source (Stryker's
 * JSON report: lines and columns count from 1).
 */
export function mutantText(source, { start, end }) {
  const lines = source.split('\n')
  const from = lines.slice(0, start.line - 1).reduce((n, line) => n + line.length + 1, 0) + start.column - 1
  const to = lines.slice(0, end.line - 1).reduce((n, line) => n + line.length + 1, 0) + end.column - 1
  return { original: source.slice(from, to), line: lines[start.line - 1] ?? '' }
}

/** The entry that accepts this mutant of `file` (a Stryker JSON report's mutant), or undefined. */
export function equivalentOf(entries, file, source, mutant) {
  const { original, line } = mutantText(source, mutant.location)
  const [text, replacement] = [squash(original), squash(mutant.replacement)]
  return entries.find(
    (entry) =>
      entry.file === file &&
      entry.mutants.some(
        ([mutator, o, r, within]) =>
          mutator === mutant.mutatorName && squash(o) === text && squash(r) === replacement && (within === undefined || line.includes(within)),
      ),
  )
}
