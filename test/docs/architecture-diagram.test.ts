import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { describe, test } from 'node:test'
import { importsOf, layerOf, layerTable, sourcesUnder, type Layer } from './layer-table.ts'

const doc = readFileSync(new URL('../../ARCHITECTURE.md', import.meta.url), 'utf8')

/**
 * The diagram of ARCHITECTURE.md (its ```mermaid block): a node is a row of the layer table, or a
 * group of rows named by a `%% group = row, row` line; an arrow `a --> b` says a's files import b's.
 */
interface Diagram {
  rowsOf: Map<string, string[]>
  arrows: Array<[string, string]>
}

function diagramOf(text: string): Diagram {
  const block = /```mermaid\n([\s\S]*?)```/.exec(text)?.[1] ?? ''
  const rowsOf = new Map<string, string[]>()
  for (const [, group, rows] of block.matchAll(/^\s*%%\s*([\w-]+)\s*=\s*(.+)$/gm)) rowsOf.set(group!, rows!.split(',').map((row) => row.trim()))
  const arrows: Array<[string, string]> = []
  for (const [, from, to] of block.matchAll(/^\s*([\w-]+)(?:\[[^\]]*\])?\s*-->\s*([\w-]+)/gm)) arrows.push([from!, to!])
  return { rowsOf, arrows }
}

/** Which diagram node a layer row belongs to: its group, or itself. */
function nodeOf(diagram: Diagram, row: string): string {
  for (const [group, rows] of diagram.rowsOf) if (rows.includes(row)) return group
  return row
}

/** Every import between two different nodes: `from → to` with one file that makes it (types only, or code). */
function importedNodes(diagram: Diagram, layers: Layer[], sources: Map<string, string>, typesToo: boolean): Map<string, string> {
  const found = new Map<string, string>()
  for (const [file, text] of sources) {
    const own = layerOf(layers, file)
    if (!own) continue
    for (const { specifier, typeOnly } of importsOf(text)) {
      if (typeOnly && !typesToo) continue
      const theirs = layerOf(layers, posix.normalize(posix.join(posix.dirname(file), specifier)))
      if (!theirs) continue
      const [from, to] = [nodeOf(diagram, own.name), nodeOf(diagram, theirs.name)]
      if (from !== to && !found.has(`${from} → ${to}`)) found.set(`${from} → ${to}`, file)
    }
  }
  return found
}

/** Whether the arrows lead from `from` to `to`, directly or through other nodes. */
function reaches(arrows: ReadonlyArray<[string, string]>, from: string, to: string): boolean {
  const seen = new Set([from])
  const queue = [from]
  while (queue.length > 0) {
    const node = queue.shift()!
    for (const [a, b] of arrows) {
      if (a !== node || seen.has(b)) continue
      if (b === to) return true
      seen.add(b)
      queue.push(b)
    }
  }
  return false
}

/**
 * What is wrong with the diagram against the code: arrows no import makes, and imports of code that
 * no path of arrows allows (an import of types only, which runs nothing, may go against them: the
 * layer table says where).
 */
function diagramProblems(diagram: Diagram, layers: Layer[], sources: Map<string, string>): string[] {
  const names = new Set(layers.map((layer) => layer.name))
  const nodes = new Set([...layers.map((layer) => nodeOf(diagram, layer.name))])
  const problems: string[] = []
  for (const [group, rows] of diagram.rowsOf) for (const row of rows) if (!names.has(row)) problems.push(`group ${group} names ${row}, no row of the layer table`)
  const imported = importedNodes(diagram, layers, sources, true)
  for (const [from, to] of diagram.arrows) {
    if (!nodes.has(from) || !nodes.has(to)) problems.push(`the arrow ${from} --> ${to} names no node`)
    else if (!imported.has(`${from} → ${to}`)) problems.push(`the arrow ${from} --> ${to} is drawn but no file of ${from} imports ${to}`)
  }
  for (const [pair, file] of importedNodes(diagram, layers, sources, false)) {
    const [from, to] = pair.split(' → ') as [string, string]
    if (!reaches(diagram.arrows, from, to)) problems.push(`${file} makes ${pair}, which no path of arrows shows`)
  }
  return problems
}

describe("ARCHITECTURE.md's diagram", () => {
  const layers = layerTable(doc)
  const diagram = diagramOf(doc)

  test('draws arrows that the code makes, and every import the code makes lies on a path of arrows', () => {
    assert.ok(diagram.arrows.length >= 8, `the diagram has ${diagram.arrows.length} arrows: the parser no longer finds them`)
    assert.deepEqual(diagramProblems(diagram, layers, sourcesUnder('src/')), [])
  })

  test('an arrow nothing makes, an import nothing draws and an unknown node are each caught', () => {
    const drawn = diagramOf('```mermaid\nflowchart TD\n  %% api = edge\n  api --> domain\n  domain --> protocol\n  errors --> nowhere\n```')
    const sources = new Map([
      ['src/app.ts', "import { x } from './domain/request.ts'"],
      ['src/domain/request.ts', "import { y } from '../errors/catalogue.ts'"],
      ['src/protocol/x.ts', "import type { Stores } from '../domain/request.ts'"],
    ])
    assert.deepEqual(diagramProblems(drawn, layers, sources), [
      'the arrow domain --> protocol is drawn but no file of domain imports protocol',
      'the arrow errors --> nowhere names no node',
      'src/domain/request.ts makes domain → errors, which no path of arrows shows',
    ])
  })
})
