// The mutation suites: for each folder of src/ under mutation testing, the tests that are about it.
// `node scripts/mutation-suites.mjs <folder> <out-dir> [targets]` bundles each test file of the suite
// (found anew each time, so a new test file is in at once) with esbuild into <out-dir>, one
// `.test.mjs` per test file with shared chunks (scripts/test-bundle.mjs, as npm test runs them). Stryker's tap
// runner counts each file as one test and records which mutants each one reaches
// (stryker.config.mjs: coverageAnalysis perTest), so a mutant runs only the files that reach it.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { bundle } from './test-bundle.mjs'

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
    tests: ['test/admin'],
    // Sends five characters to every field of the OpenAPI document: its rule is the domain's
    // (test/domain/control-characters.test.ts), and it takes half a minute per mutant.
    skip: ['test/admin/text-fields.test.ts'],
  },
  'src/pages': {
    tests: ['test/pages', 'test/console'],
    // Every field of every form with five characters: about 80 s per mutant; its rule is the domain's.
    skip: ['test/console/text-fields.test.ts'],
  },
  'src/http': { tests: ['test/http'] },
  // The PostgreSQL and Redis files skip themselves here: mutation runs on SQLite and memory.
  'src/storage': { tests: ['test/storage'] },
  'src/observability': {
    tests: ['test/observability'],
    // Runs only in the primary and the workers of `serve --workers`, separate processes whose
    // coverage Stryker cannot see; test/server/workers.test.ts scrapes the sum through them.
    unmutated: ['src/observability/cluster-metrics.ts'],
  },
}

/** The folders, in the order `npm run mutate` runs them. */
export const FOLDERS = Object.keys(SUITES)

function testFiles(dir) {
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
 * The test files that import one of the mutated files themselves come first: a mutant stops at its
 * first failing file (forceBail), so the tests most about it decide soonest. The tap runner runs
 * files in the order it finds them, so the order is in the names: `0-` first, `1-` after.
 */
function aboutFirst(files, targets) {
  const names = targets.filter((t) => t.endsWith('.ts')).map((t) => `/${t.split('/').pop()}'`)
  const isAbout = (file) => names.some((name) => readFileSync(file, 'utf8').includes(name))
  return files.map((file) => ({ file, rank: isAbout(file) ? 0 : 1 }))
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const [folder, outDir, targets = ''] = process.argv.slice(2)
  const out = resolve(outDir)
  const entries = join(out, 'entries')
  rmSync(out, { recursive: true, force: true })
  mkdirSync(entries, { recursive: true })
  const importOf = (from, file) => `import '${relative(from, resolve(file)).replaceAll('\\', '/').replace(/^(?!\.)/, './')}'`
  const entryPoints = aboutFirst(suiteFiles(folder), targets.split(',').filter(Boolean)).map(({ file, rank }) => {
    // test/admin/auth.test.ts → <out>/admin/0-auth.test.mjs.
    const name = relative('test', file).replace(/[^/]+\.test\.ts$/, (base) => `${rank}-${base}`).replace(/\.ts$/, '')
    const entry = join(entries, `${name.replaceAll('/', '--')}.ts`)
    // Cheaper password hashing first, before any test makes a user (see the file).
    writeFileSync(entry, `// Written by scripts/mutation-suites.mjs for ${folder}.\n${importOf(entries, 'test/helpers/cheap-password-hashing.ts')}\n${importOf(entries, file)}\n`)
    return { in: entry, out: name }
  })
  await bundle(entryPoints, out)
}
