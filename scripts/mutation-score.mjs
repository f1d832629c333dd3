// The mutation score of a folder from the reports of its files: `npm run mutate` mutates a folder
// one file at a time (scripts/mutate.mjs), so that a run cut short keeps the files it finished and
// each file's survivors can be read as soon as it is done. `node scripts/mutation-score.mjs src/http`
// prints each file's counts and the folder's row for docs/testing.md; a file not run yet is named.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { SUITES } from './mutation-suites.mjs'

/** The report name of a mutation target, as stryker.config.mjs names it. */
export const reportName = (target) => target.replace(/^src\//, '').replace(/\.ts$/, '').replaceAll('/', '-')

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


/** Counts by status of one file's report, or undefined when it has not been run. */
function countsOf(file) {
  const path = `reports/mutation/${reportName(file)}.json`
  if (!existsSync(path)) return undefined
  const report = JSON.parse(readFileSync(path, 'utf8'))
  const counts = { mutants: 0, Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, other: 0 }
  for (const mutant of report.files[file]?.mutants ?? []) {
    if (mutant.status === 'Ignored' || mutant.status === 'CompileError' || mutant.status === 'RuntimeError') continue
    counts.mutants++
    if (mutant.status in counts) counts[mutant.status]++
    else counts.other++
  }
  return counts
}

const score = (c) => (c.mutants === 0 ? 100 : (100 * (c.Killed + c.Timeout)) / (c.mutants - c.other))

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const folder = (process.argv[2] ?? '').replace(/\/+$/, '')
  if (!SUITES[folder]) {
    console.error(`mutation-score: name one of ${Object.keys(SUITES).join(', ')}`)
    process.exit(1)
  }
  const total = { mutants: 0, Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, other: 0 }
  const missing = []
  for (const file of mutatedFiles(folder)) {
    const counts = countsOf(file)
    if (!counts) {
      missing.push(file)
      continue
    }
    for (const key of Object.keys(total)) total[key] += counts[key]
    const undetected = counts.Survived + counts.NoCoverage
    console.log(`${file.padEnd(48)} ${String(counts.mutants).padStart(5)} mutants  ${String(undetected).padStart(4)} undetected  ${score(counts).toFixed(1).padStart(5)} %`)
  }
  if (missing.length > 0) console.log(`not run yet: ${missing.join(', ')}`)
  console.log(
    `| \`${folder}\` | ${total.mutants} | ${total.Killed} | ${total.Timeout} | ${total.Survived} | ${total.NoCoverage} | ${score(total).toFixed(1)} % |` +
      (missing.length > 0 ? ` (${missing.length} files not run yet)` : ''),
  )
}
