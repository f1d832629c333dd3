// The mutation score of a folder from the reports of its files: `npm run mutate` mutates a folder
// one file at a time (scripts/mutate.mjs), so that a run cut short keeps the files it finished and
// each file's survivors can be read as soon as it is done; a run of several files at once counts
// too, each file taken from the newest report that holds it. `node scripts/mutation-score.mjs src/http`
// prints each file's counts and the folder's row for docs/testing.md; a file not run yet is named.
// Survivors accepted as equivalent (scripts/mutation-equivalents.json) are counted apart, with the
// score without them; every other survivor is printed, for it is a rule without a test.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { equivalentOf, mutantText, readEquivalents } from './mutation-equivalents.mjs'
import { SUITES } from './mutation-suites.mjs'

/** The files of a folder that are mutated: every .ts file, less those its suite leaves unmutated. */
export function mutatedFiles(folder) {
  const unmutated = new Set(SUITES[folder]?.unmutated ?? [])
  const walk = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return walk(path)
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
    })
  return walk(folder)
    .filter((file) => !unmutated.has(file))
    .sort()
}

/**
 * Each mutated file's mutants and source, from the newest report that holds the file: a file's own run, a run
 * of several files at once (LATCHKEY_MUTATE=a.ts,b.ts) or a `--changed` run.
 */
function newestMutants() {
  const dir = 'reports/mutation'
  const byFile = new Map()
  if (!existsSync(dir)) return byFile
  const reports = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
  for (const path of reports) {
    for (const [file, { mutants, source }] of Object.entries(JSON.parse(readFileSync(path, 'utf8')).files ?? {})) byFile.set(file, { mutants, source })
  }
  return byFile
}

/** Counts by status of one file's mutants, or undefined when it has not been run. */
function countsOf(mutants) {
  if (!mutants) return undefined
  const counts = { mutants: 0, Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, other: 0 }
  for (const mutant of mutants) {
    if (mutant.status === 'Ignored' || mutant.status === 'CompileError' || mutant.status === 'RuntimeError') continue
    counts.mutants++
    if (mutant.status in counts) counts[mutant.status]++
    else counts.other++
  }
  return counts
}

const isUndetected = (mutant) => mutant.status === 'Survived' || mutant.status === 'NoCoverage'
const score = (c) => (c.mutants === 0 ? 100 : (100 * (c.Killed + c.Timeout)) / (c.mutants - c.other))

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const folder = (process.argv[2] ?? '').replace(/\/+$/, '')
  if (!SUITES[folder]) {
    console.error(`mutation-score: name one of ${Object.keys(SUITES).join(', ')}`)
    process.exit(1)
  }
  const total = { mutants: 0, Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, other: 0 }
  const missing = []
  const unexplained = []
  const entries = readEquivalents()
  const used = new Set()
  const ran = new Set()
  let equivalentTotal = 0
  const mutantsOf = newestMutants()
  for (const file of mutatedFiles(folder)) {
    const found = mutantsOf.get(file)
    const counts = countsOf(found?.mutants)
    if (!counts) {
      missing.push(file)
      continue
    }
    ran.add(file)
    for (const key of Object.keys(total)) total[key] += counts[key]
    let equivalent = 0
    for (const mutant of found.mutants.filter(isUndetected)) {
      const entry = equivalentOf(entries, file, found.source, mutant)
      if (entry) {
        used.add(entry)
        equivalent++
      } else {
        const { original } = mutantText(found.source, mutant.location)
        unexplained.push(`${file}:${mutant.location.start.line} ${mutant.mutatorName} ${JSON.stringify(original.replace(/\s+/g, ' '))} → ${JSON.stringify(mutant.replacement.replace(/\s+/g, ' '))} (${mutant.status})`)
      }
    }
    equivalentTotal += equivalent
    const undetected = counts.Survived + counts.NoCoverage
    console.log(
      `${file.padEnd(48)} ${String(counts.mutants).padStart(5)} mutants  ${String(undetected).padStart(4)} undetected (${equivalent} equivalent)  ${score(counts).toFixed(1).padStart(5)} %`,
    )
  }
  if (missing.length > 0) console.log(`not run yet: ${missing.join(', ')}`)
  console.log(
    `| \`${folder}\` | ${total.mutants} | ${total.Killed} | ${total.Timeout} | ${total.Survived} | ${total.NoCoverage} | ${score(total).toFixed(1)} % |` +
      (missing.length > 0 ? ` (${missing.length} files not run yet)` : ''),
  )
  console.log(
    `${equivalentTotal} undetected accepted as equivalent (scripts/mutation-equivalents.json); without them ${score({ ...total, mutants: total.mutants - equivalentTotal }).toFixed(1)} %`,
  )
  if (unexplained.length > 0) console.log(`undetected and not accepted as equivalent, each a rule without a test:\n  ${unexplained.join('\n  ')}`)
  const unused = entries.filter((entry) => ran.has(entry.file) && !used.has(entry))
  if (unused.length > 0) console.log(`accepted entries no undetected mutant matches (killed now, or the code changed):\n  ${unused.map((e) => `${e.file}: ${e.reason}`).join('\n  ')}`)
}
