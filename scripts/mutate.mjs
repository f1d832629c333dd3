// `npm run mutate` mutates src/protocol then src/domain; `npm run mutate -- src/protocol` one folder.
// Extra Stryker flags pass through (`npm run mutate -- src/domain --force` ignores the incremental file).
import { spawnSync } from 'node:child_process'

const FOLDERS = ['src/protocol', 'src/domain']
const args = process.argv.slice(2)
const asked = args.filter((a) => !a.startsWith('-')).map((a) => a.replace(/\/+$/, ''))
const flags = args.filter((a) => a.startsWith('-'))
const unknown = asked.filter((a) => !FOLDERS.includes(a))
if (unknown.length > 0) {
  console.error(`mutate: ${unknown.join(', ')} is not one of ${FOLDERS.join(', ')}`)
  process.exit(1)
}
let failed = false
for (const folder of asked.length > 0 ? asked : FOLDERS) {
  console.log(`▶ mutating ${folder}`)
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...flags], { stdio: 'inherit', env: { LATCHKEY_PROPERTY_RUNS_SCALE: '0.05', ...process.env, LATCHKEY_MUTATE: folder } })
  if (run.status !== 0) failed = true
}
process.exit(failed ? 1 : 0)
