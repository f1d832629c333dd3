// The mutation suites: for each folder of src/ under mutation testing, the tests that are about it.
// `node scripts/mutation-suites.mjs <folder> <bundle>` writes one entry file that imports every test
// file of the suite (found anew each time, so a new test file is in at once) and bundles it with
// esbuild into <bundle>, which Stryker runs once per mutant (stryker.config.mjs): one Node start per
// mutant, not one per test file, and plain Node rather than tsx.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { build } from 'esbuild'

/** Each folder's tests; `skip` holds files left out, each for the reason beside it. */
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
  'src/observability': { tests: ['test/observability'] },
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
 * The test files that import one of the mutated files themselves come first: a mutant stops the run
 * at its first failing test (forceBail), so the tests most about it decide soonest.
 */
function aboutFirst(files, targets) {
  const names = targets.filter((t) => t.endsWith('.ts')).map((t) => `/${t.split('/').pop()}'`)
  if (names.length === 0) return files
  const isAbout = (file) => names.some((name) => readFileSync(file, 'utf8').includes(name))
  return [...files.filter(isAbout), ...files.filter((file) => !isAbout(file))]
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const [folder, bundle, targets = ''] = process.argv.slice(2)
  const from = dirname(resolve(bundle))
  const entry = join(from, 'entry.ts')
  const importOf = (file) => `import '${relative(from, resolve(file)).replaceAll('\\', '/').replace(/^(?!\.)/, './')}'`
  mkdirSync(from, { recursive: true })
  // Cheaper password hashing first, before any test makes a user (see the file).
  const lines = ['test/helpers/cheap-password-hashing.ts', ...aboutFirst(suiteFiles(folder), targets.split(',').filter(Boolean))].map(importOf)
  writeFileSync(entry, `// Written by scripts/mutation-suites.mjs for ${folder}.\n${lines.join('\n')}\n`)
  await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', packages: 'external', target: 'node20', logLevel: 'warning', outfile: bundle })
}
