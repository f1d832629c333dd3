// Types of scripts/mutation-equivalents.mjs, for the tests that import it.
export const EQUIVALENTS_FILE: URL
/** Stryker's mutator name, the source text it replaces, the text it puts instead, and optionally a text the mutant's first line holds. */
export type MutantKey = [mutator: string, original: string, replacement: string, within?: string]
export interface EquivalentEntry {
  file: string
  reason: string
  mutants: MutantKey[]
}
interface Position {
  line: number
  column: number
}
export interface ReportedMutant {
  mutatorName: string
  replacement: string
  location: { start: Position; end: Position }
}
export function readEquivalents(path?: URL | string): EquivalentEntry[]
export function mutantText(source: string, location: ReportedMutant['location']): { original: string; line: string }
export function equivalentOf(entries: EquivalentEntry[], file: string, source: string, mutant: ReportedMutant): EquivalentEntry | undefined
