// The mutation suites: for each folder of src/ under mutation testing, the tests that are about it.
// `node scripts/mutation-suites.mjs <folder> <out-dir> [targets] [reports-dir]` bundles each test file of the suite
// (found anew each time, so a new test file is in at once) with esbuild into <out-dir>, one
// `.test.mjs` per test file with shared chunks (scripts/test-bundle.mjs, as npm test runs them). Stryker's tap
// runner counts each file as one test and records which mutants each one reaches
// (stryker.config.mjs: coverageAnalysis perTest), so a mutant runs only the files that reach it.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { bundle } from './test-bundle.mjs'
import { ORDER_FILE, sourceOfBundle } from './stryker-ordered-tap.mjs'

/** Where the reports of earlier runs are, unless the build is told (Stryker builds in a sandbox). */
const REPORTS = 'reports/mutation'

/**
 * The fuzzes of hostile requests (issue 29): thousands of requests to a running server, from a
 * seed of the moment, so a mutant's fate would change from run to run, and each costs minutes; what
 * they found is pinned by focused tests (test/admin/fuzz-findings.test.ts among them). Left out of
 * every suite, as they were when they lived in test/fuzz/.
 */
const FUZZES = ['test/admin/hostile-requests.test.ts', 'test/pages/console/hostile-requests.test.ts', 'test/http/hostile-requests.test.ts']

/**
 * Each folder's tests; `skip` holds test files left out, `unmutated` source files not mutated, each
 * for the reason beside it.
 */
export const SUITES = {
  'src/protocol': {
    tests: ['test/protocol'],
    // Its references are now the code's own algorithms, and its exhaustive loop is slow.
    skip: ['test/protocol/oauth1/fast-paths.test.ts'],
  },
  'src/domain': { tests: ['test/domain'] },
  'src/admin': {
    // With the admin listener's /metrics, which the observability test scrapes.
    tests: ['test/admin', 'test/observability/admin-metrics.test.ts'],
    // Sends five characters to every field of the OpenAPI document: its rule is the domain's
    // (test/domain/control-characters.test.ts), and it takes half a minute per mutant.
    skip: ['test/admin/text-fields.test.ts', ...FUZZES],
  },
  'src/pages': {
    // With the audit trail's test, which tells an automatic consent from one the person gave.
    tests: ['test/pages', 'test/http/audit.test.ts'],
    // Every field of every form with five characters: about 80 s per mutant; its rule is the domain's.
    skip: ['test/pages/console/text-fields.test.ts', ...FUZZES],
  },
  // The OpenAPI documents it builds (openapi-public.ts, openapi-console.ts) are checked whole against
  // docs/ by the admin API's document test.
  // Its metrics and tracing plugins by the observability tests that scrape and trace through them (the
  // admin listener's /metrics too), the
  // address brake on pages by the pages' own limit test, its refusals' metric by the label test.
  'src/http': {
    tests: ['test/http', 'test/admin/openapi.test.ts', 'test/observability/metrics.test.ts', 'test/observability/tracing.test.ts', 'test/observability/tracing-spans.test.ts', 'test/pages/rate-limit.test.ts', 'test/observability/label-values.test.ts', 'test/observability/admin-metrics.test.ts'],
    skip: FUZZES,
  },
  // The PostgreSQL and Redis files skip themselves here: mutation runs on SQLite and memory.
  'src/storage': { tests: ['test/storage'] },
  'src/observability': {
    tests: ['test/observability'],
    // Runs only in the primary and the workers of `serve --workers`, separate processes whose
    // coverage Stryker cannot see; test/cli/serve/workers.test.ts scrapes the sum through them.
    unmutated: ['src/observability/cluster-metrics.ts'],
  },
}

/** The folders, in the order `npm run mutate` runs them. */
export const FOLDERS = Object.keys(SUITES)

/** The test files under `path`, or `path` itself when it is one. */
function testFiles(path) {
  if (path.endsWith('.test.ts')) return [path]
  const dir = path
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(path)
    return entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** The test files of a folder's suite, sorted. */
export function suiteFiles(folder) {
  const suite = SUITES[folder]
  if (!suite) throw new Error(`no mutation suite for ${folder}`)
  const skip = new Set(suite.skip ?? [])
  return suite.tests.flatMap(testFiles).filter((file) => !skip.has(file)).sort()
}

/**
 * How many of the targets' mutants each test file killed in earlier runs: every report under
 * reports/mutation/ names, for each mutant, the bundle that killed it.
 */
function earlierKills(targets, reports) {
  const kills = new Map()
  if (!existsSync(reports)) return kills
  for (const name of readdirSync(reports).filter((n) => n.endsWith('.json'))) {
    let report
    try {
      report = JSON.parse(readFileSync(join(reports, name), 'utf8'))
    } catch {
      continue
    }
    const fileOfTest = new Map()
    for (const [bundle, { tests }] of Object.entries(report.testFiles ?? {})) {
      // test/http/oauth2.test.ts, or, from older runs, .mutation-bundle/http/oauth2.test.mjs or 1-oauth2.test.mjs
      const source = sourceOfBundle(bundle).replace(/\/\d+-([^/]+)$/, '/$1')
      for (const test of tests) fileOfTest.set(test.id, source)
    }
    for (const target of targets) {
      for (const mutant of report.files?.[target]?.mutants ?? []) {
        for (const id of mutant.killedBy ?? []) {
          const file = fileOfTest.get(id)
          if (file) kills.set(file, (kills.get(file) ?? 0) + 1)
        }
      }
    }
  }
  return kills
}

/**
 * The order the files run in for each mutant (scripts/stryker-ordered-tap.mjs): a mutant stops at its
 * first failing file, so the files that killed most of these targets' mutants before come first,
 * then the files that import a target themselves, then the rest by name.
 */
function runOrder(files, targets, reports) {
  const kills = earlierKills(targets, reports)
  const names = targets.map((t) => `/${t.split('/').pop()}'`)
  const imports = new Set(files.filter((file) => names.some((name) => readFileSync(file, 'utf8').includes(name))))
  const rank = (file) => [-(kills.get(file) ?? 0), imports.has(file) ? 0 : 1]
  return [...files].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)]
    return ra[0] - rb[0] || ra[1] - rb[1] || a.localeCompare(b)
  })
}

/**
 * Whether the bundle at `output` holds one of `sources` (paths from the repository root), itself
 * or in a chunk it imports, statically or dynamically, however deep. `outputs`: esbuild's
 * metafile outputs by absolute path.
 */
function reaches(outputs, output, sources) {
  const wanted = new Set(sources.map((source) => resolve(source)))
  const seen = new Set()
  const pending = [resolve(output)]
  while (pending.length > 0) {
    const path = pending.pop()
    if (seen.has(path)) continue
    seen.add(path)
    const meta = outputs.get(path)
    if (!meta) continue
    if (Object.keys(meta.inputs).some((input) => wanted.has(resolve(input)))) return true
    for (const { path: imported, external } of meta.imports) if (!external) pending.push(resolve(imported))
  }
  return false
}

/** The files of a comma-separated list of targets, a line range (`file.ts:96-121`) dropped. */
const targetFiles = (targets) => targets.split(',').map((t) => t.replace(/:[\d:-]+$/, '')).filter((t) => t.endsWith('.ts'))

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const [folder, outDir, targets = '', reports = REPORTS] = process.argv.slice(2)
  const out = resolve(outDir)
  const entries = join(out, 'entries')
  rmSync(out, { recursive: true, force: true })
  mkdirSync(entries, { recursive: true })
  const importOf = (from, file) => `import '${relative(from, resolve(file)).replaceAll('\\', '/').replace(/^(?!\.)/, './')}'`
  const order = runOrder(suiteFiles(folder), targetFiles(targets), reports)
  const entryPoints = order.map((file) => {
    // test/admin/auth.test.ts → <out>/admin/auth.test.mjs.
    const name = relative('test', file).replace(/\.ts$/, '')
    const entry = join(entries, `${name.replaceAll('/', '--')}.ts`)
    // Cheaper password hashing first, before any test makes a user (see the file).
    writeFileSync(entry, `// Written by scripts/mutation-suites.mjs for ${folder}.\n${importOf(entries, 'test/helpers/cheap-password-hashing.ts')}\n${importOf(entries, file)}\n`)
    return { in: entry, out: name }
  })
  const { outputs } = await bundle(entryPoints, out)
  const outputsByPath = new Map(Object.entries(outputs).map(([path, meta]) => [resolve(path), meta]))
  // test/admin/auth.test.ts → admin/auth.test.mjs, in `dir`.
  const bundleIn = (dir, file) => `${dir}/${relative('test', file).replace(/\.ts$/, '.mjs')}`
  // A test file that cannot reach a target (by any import, however deep) is not run, not even in the dry run.
  const wanted = targetFiles(targets)
  const filtered = wanted.length === 0 ? order : order.filter((file) => reaches(outputsByPath, bundleIn(out, file), wanted))
  // None at all: every file runs, and Stryker reports the targets' mutants as not covered.
  const reaching = filtered.length > 0 ? filtered : order
  for (const file of order.filter((f) => !reaching.includes(f))) rmSync(bundleIn(out, file))
  writeFileSync(join(out, ORDER_FILE), `${JSON.stringify(reaching.map((file) => bundleIn(outDir.replace(/\/+$/, ''), file)), null, 2)}\n`)
}
