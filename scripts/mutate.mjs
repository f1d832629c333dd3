// `npm run mutate` mutates every folder of scripts/mutation-suites.mjs in turn;
// `npm run mutate -- src/http` one folder, `npm run mutate -- src/web/bounds.ts` one file (with its
// folder's tests); `npm run mutate -- --changed` the files of those folders changed since main
// (committed since the branch left origin/main, or not committed yet), one Stryker run per file.
// A folder is mutated one file at a time, each with its own incremental file and report, so that a
// run cut short keeps what it finished (a rerun tests only what changed) and each file's survivors
// can be read at once; scripts/mutation-score.mjs adds the files up into the folder's score. A
// changed file's run is that same run, so it shares the file's incremental file.
// Extra Stryker flags pass through (`npm run mutate -- src/domain --force` ignores the incremental files).
import { execFileSync, spawnSync } from 'node:child_process'
import { FOLDERS } from './mutation-suites.mjs'
import { mutatedFiles } from './mutation-score.mjs'

const args = process.argv.slice(2)
// A word after a flag is that flag's value (`--concurrency 1`) unless it is a path under src/ (`--force src/domain`).
const isTarget = (a, i) => !a.startsWith('-') && (a.startsWith('src/') || !args[i - 1]?.startsWith('--') || args[i - 1].includes('='))
const changed = args.includes('--changed')
const asked = args.filter(isTarget).map((a) => a.replace(/\/+$/, ''))
const flags = args.filter((a, i) => !isTarget(a, i) && a !== '--changed')
const folderOf = (path) => FOLDERS.find((folder) => path === folder || path.startsWith(`${folder}/`))
const unknown = asked.filter((a) => !folderOf(a))
if (unknown.length > 0) {
  console.error(`mutate: ${unknown.join(', ')} is not ${FOLDERS.join(', ')} or a path under one`)
  process.exit(1)
}

/** Each run: the targets of one folder (LATCHKEY_MUTATE) and the name of its reports. */
function runs() {
  if (!changed) {
    return (asked.length > 0 ? asked : FOLDERS).flatMap((target) =>
      FOLDERS.includes(target) ? mutatedFiles(target).map((file) => ({ targets: [file] })) : [{ targets: [target] }],
    )
  }
  // Each file as the folder's own run of it names it, so that its incremental file is shared: a file
  // measured before has only the mutants of what changed since tested again.
  return changedFiles()
    .filter((file) => file.endsWith('.ts') && folderOf(file) && mutatedFiles(folderOf(file)).includes(file))
    .map((file) => ({ targets: [file] }))
}

/** Files changed since main: in commits since HEAD left origin/main (when there is one), staged, unstaged and new. */
function changedFiles() {
  const git = (...gitArgs) => execFileSync('git', gitArgs, { encoding: 'utf8' }).split('\n').filter(Boolean)
  let base = 'HEAD'
  try {
    base = git('merge-base', 'HEAD', 'origin/main')[0] ?? 'HEAD'
  } catch {
    // No origin/main: only what is not committed yet counts as changed.
  }
  return [...new Set([...git('diff', '--name-only', base), ...git('ls-files', '--others', '--exclude-standard')])].sort()
}

const planned = runs()
if (planned.length === 0) console.log('mutate: no file of a mutated folder changed since main')
let failed = false
for (const { targets, name } of planned) {
  console.log(`▶ mutating ${targets.join(', ')}`)
  const env = { LATCHKEY_PROPERTY_RUNS_SCALE: '0.05', ...process.env, LATCHKEY_MUTATE: targets.join(','), ...(name ? { LATCHKEY_MUTATE_NAME: name } : {}) }
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...flags], { stdio: 'inherit', env })
  if (run.status !== 0) failed = true
}
for (const folder of FOLDERS.filter((f) => !changed && (asked.length === 0 || asked.includes(f)))) {
  spawnSync('node', ['scripts/mutation-score.mjs', folder], { stdio: 'inherit' })
}
process.exit(failed ? 1 : 0)
