// Runs the test suite with node:test through tsx. Arguments narrow it to folders or files
// (`npm test -- test/protocol`); with none, every test/**/*.test.ts runs.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

function findTests(path) {
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : []
  return readdirSync(path)
    .sort()
    .flatMap((name) => findTests(join(path, name)))
}

const roots = process.argv.slice(2)
const files = (roots.length > 0 ? roots : ['test']).flatMap(findTests)
if (files.length === 0) {
  console.error('no test files found under', roots.join(' ') || 'test')
  process.exit(1)
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
)
process.exit(result.status ?? 1)
