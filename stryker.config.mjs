import { resolve } from 'node:path'

// StrykerJS (mutation testing): `npm run mutate [-- src/protocol | src/domain | a file under them]`
// through scripts/mutate.mjs, which sets LATCHKEY_MUTATE to one folder or file per run. Not part of npm test or CI.
// Each folder is mutated with the narrow, fast tests that are about it (no HTTP, no PostgreSQL),
// run by node:test with the TAP runner, and incrementally: a rerun tests only the mutants of code
// changed since the last one (reports/stryker-incremental-*.json; after changing tests, use --force).
// One file per folder that imports its tests: one Node start per mutant, not one per test file.
const TESTS = {
  'src/protocol': ['test/protocol/mutation-suite.ts'],
  'src/domain': ['test/domain/mutation-suite.ts'],
}
// A folder (every file in it) or one file, under one of the folders above.
const target = (process.env.LATCHKEY_MUTATE ?? 'src/protocol').replace(/\/+$/, '')
const folder = Object.keys(TESTS).find((f) => target === f || target.startsWith(`${f}/`))
if (!folder) throw new Error(`LATCHKEY_MUTATE must be ${Object.keys(TESTS).join(' or ')} or a path under one, not ${target}`)
const name = target.replace(/^src\//, '').replace(/\.ts$/, '').replaceAll('/', '-')
const BUNDLE = `.mutation-bundle/${folder.replace(/^src\//, '')}.mjs`
// Property tests try a twentieth of their cases per mutant (test/helpers/property-runs.ts).
process.env.LATCHKEY_PROPERTY_RUNS_SCALE ??= '0.05'

export default {
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  mutate: [target.endsWith('.ts') ? target : `${target}/**/*.ts`],
  // The mutation suite is bundled once per run (in the sandbox, after Stryker has instrumented the
  // code) and each mutant runs the bundle with plain Node: a third less CPU per mutant than tsx.
  buildCommand: `${resolve('node_modules/esbuild/bin/esbuild')} ${TESTS[folder][0]} --bundle --platform=node --format=esm --packages=external --target=node20 --log-level=warning --outfile=${BUNDLE}`,
  tap: { testFiles: [BUNDLE], nodeArgs: [], forceBail: true },
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
  ignorePatterns: ['/.stryker-tmp'],
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
}
