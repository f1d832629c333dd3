// `npm run mutate` mutates src/protocol then src/domain; `npm run mutate -- src/protocol` one folder,
// `npm run mutate -- src/protocol/oauth1/signature.ts` one file (with its folder's tests).
// Extra Stryker flags pass through (`npm run mutate -- src/domain --force` ignores the incremental file).
import { spawnSync } from 'node:child_process'

const FOLDERS = ['src/protocol', 'src/domain']
const args = process.argv.slice(2)
// A word after a flag is that flag's value (`--concurrency 1`) unless it is a path under src/ (`--force src/domain`).
const isTarget = (a, i) => !a.startsWith('-') && (a.startsWith('src/') || !args[i - 1]?.startsWith('--') || args[i - 1].includes('='))
const asked = args.filter(isTarget).map((a) => a.replace(/\/+$/, ''))
const flags = args.filter((a, i) => !isTarget(a, i))
const unknown = asked.filter((a) => !FOLDERS.some((folder) => a === folder || a.startsWith(`${folder}/`)))
if (unknown.length > 0) {
  console.error(`mutate: ${unknown.join(', ')} is not ${FOLDERS.join(' or ')} or a path under one`)
  process.exit(1)
}
let failed = false
for (const target of asked.length > 0 ? asked : FOLDERS) {
  console.log(`▶ mutating ${target}`)
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...flags], { stdio: 'inherit', env: { LATCHKEY_PROPERTY_RUNS_SCALE: '0.05', ...process.env, LATCHKEY_MUTATE: target } })
  if (run.status !== 0) failed = true
}
process.exit(failed ? 1 : 0)
