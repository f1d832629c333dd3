// Whether dist/ (what bin/latchkey.js runs) is older than the sources: the process tests run the
// installed command, so they must not run yesterday's build. npm test builds when it is stale.
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const BUILT = 'dist/cli/main.js'

function newestSource(dir) {
  let newest = { path: undefined, ms: 0 }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    const found = entry.isDirectory() ? newestSource(path) : entry.name.endsWith('.ts') ? { path, ms: statSync(path).mtimeMs } : newest
    if (found.ms > newest.ms) newest = found
  }
  return newest
}

/** The first empty .js file under dir: what a build stopped midway leaves, with a fresh time. */
function emptyOutput(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    const found = entry.isDirectory() ? emptyOutput(path) : entry.name.endsWith('.js') && statSync(path).size === 0 ? path : undefined
    if (found) return found
  }
  return undefined
}

/** Why dist/ must be built again: missing, older than the newest source, or cut short; undefined when it is current. */
export function staleBuild(root) {
  const source = newestSource(join(root, 'src'))
  let builtMs = 0
  try {
    builtMs = statSync(join(root, BUILT)).mtimeMs
  } catch {
    return `${source.path ? relative(root, source.path) : 'src'} (there is no ${BUILT})`
  }
  if (source.ms > builtMs) return relative(root, source.path)
  const empty = emptyOutput(join(root, 'dist'))
  return empty ? `its own ${relative(root, empty)}, which is empty (a build that was stopped)` : undefined
}

/** Builds dist/ (npm run build) when it is older than the sources; says why on stdout. */
export function buildWhenStale(root) {
  const stale = staleBuild(root)
  if (!stale) return
  console.log(`building dist/ for the process tests: it is older than ${stale}`)
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' })
}
