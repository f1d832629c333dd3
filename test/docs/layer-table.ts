// ARCHITECTURE.md's layer table as data, and the imports of src/ judged against it: shared by the
// map's tests (architecture-doc.test.ts, architecture-diagram.test.ts).
import { readFileSync, readdirSync } from 'node:fs'
import { posix } from 'node:path'

const ROOT = new URL('../../', import.meta.url)

/** One row of ARCHITECTURE.md's layer table. */
export interface Layer {
  name: string
  paths: string[]
  mayImport: Set<string>
  typesOnly: Set<string>
}

/** The layer table: the rows after the `<!-- layers … -->` marker, until the first line that is not a row. */
export function layerTable(text: string): Layer[] {
  const lines = text.slice(text.indexOf('<!-- layers')).split('\n').slice(1)
  const rows = lines.slice(0, lines.findIndex((line) => !line.startsWith('|'))).slice(2)
  const names = (cell: string) => new Set(cell.split(',').map((name) => name.trim()).filter(Boolean))
  return rows.map((row) => {
    const [name, paths, mayImport, typesOnly] = row.split('|').slice(1, -1).map((cell) => cell.trim())
    return { name: name!, paths: [...paths!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), mayImport: names(mayImport!), typesOnly: names(typesOnly!) }
  })
}

/** The layer of a file of src/: the row with the longest path that is a prefix of it (or the file itself). */
export function layerOf(layers: Layer[], file: string): Layer | undefined {
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
export function importsOf(text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const found: Array<{ specifier: string; typeOnly: boolean }> = []
  for (const m of text.matchAll(/^\s*(import|export)(\s+type)?\s[^'";]*?from\s+'([^']+)'/gm)) found.push({ specifier: m[3]!, typeOnly: Boolean(m[2]) })
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) found.push({ specifier: m[1]!, typeOnly: false })
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push({ specifier: m[1]!, typeOnly: false })
  return found.filter((i) => i.specifier.startsWith('.'))
}

/** The imports of `sources` (path → text) that run against the table, one line each. */
export function layeringViolations(layers: Layer[], sources: Map<string, string>): string[] {
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

export function sourcesUnder(folder: string): Map<string, string> {
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

