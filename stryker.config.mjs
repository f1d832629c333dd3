import { resolve } from 'node:path'
import { SUITES } from './scripts/mutation-suites.mjs'

// StrykerJS (mutation testing): `npm run mutate [-- <folder> | <file> | --changed]` through
// scripts/mutate.mjs, which sets LATCHKEY_MUTATE to one folder, one file, or a comma-separated list
// of files of one folder per run. Not part of npm test or CI. Each folder is mutated with the tests
// about it (scripts/mutation-suites.mjs: SQLite and memory, never PostgreSQL or Redis), each test
// file bundled and run by node:test with the TAP runner; a mutant runs only the files that reach it
// (perTest: the tap runner's test is a file). Runs are incremental: a rerun tests only the mutants
// of code changed since the last one (reports/stryker-incremental-*.json; after changing tests, use
// --force).
const targets = (process.env.LATCHKEY_MUTATE ?? 'src/protocol').split(',').map((t) => t.trim().replace(/\/+$/, ''))
const folder = Object.keys(SUITES).find((f) => targets.every((t) => t === f || t.startsWith(`${f}/`)))
if (!folder) throw new Error(`LATCHKEY_MUTATE must name ${Object.keys(SUITES).join(', ')} or paths under one of them, not ${targets.join(', ')}`)
const name = process.env.LATCHKEY_MUTATE_NAME ?? targets[0].replace(/^src\//, '').replace(/\.ts(:[\d:-]+)?$/, '').replaceAll('/', '-')
// The bundled test files sit as deep as the test files do (see scripts/mutation-suites.mjs).
const BUNDLES = '.mutation-bundle'
// Property tests try a twentieth of their cases per mutant (test/helpers/property-runs.ts).
process.env.LATCHKEY_PROPERTY_RUNS_SCALE ??= '0.05'

export default {
  // The TAP runner, running the files in the order the suite's build wrote (scripts/stryker-ordered-tap.mjs).
  testRunner: 'ordered-tap',
  plugins: ['@stryker-mutator/tap-runner', './scripts/stryker-ordered-tap.mjs'],
  mutate: [...targets.map((target) => (/\.ts(:[\d:-]+)?$/.test(target) ? target : `${target}/**/*.ts`)), ...(SUITES[folder].unmutated ?? []).map((file) => `!${file}`)],
  // The suite is bundled once per run (in the sandbox, after Stryker has instrumented the code) and
  // each mutant runs bundles with plain Node: a third less CPU per file than tsx.
  // The earlier runs' reports order the files (the build runs in the sandbox, which has none).
  buildCommand: `node scripts/mutation-suites.mjs ${folder} ${BUNDLES} ${targets.join(',')} ${resolve('reports/mutation')}`,
  tap: { testFiles: [`${BUNDLES}/**/*.test.mjs`], nodeArgs: ['--import', './scripts/mutation-worker-guard.mjs'], forceBail: true },
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${name}.json`,
  concurrency: 2,
  // A mutant that loops forever is caught by the timeout (and counts as detected). Generous, so that
  // a test run slowed by a busy machine is not taken for one.
  timeoutMS: 30_000,
  timeoutFactor: 1.25,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  // A folder per target, so that runs of two targets at once never remove each other's sandbox.
  tempDirName: `.stryker-tmp/${name}`,
  ignorePatterns: ['/.stryker-tmp', '/reports', '/.test-bundle'],
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
}
