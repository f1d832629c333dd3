// `npx tsx bench/profile-summary.ts <file.cpuprofile> [top] [skip seconds]`: where a V8 CPU
// profile's time went, leaving out the first seconds (start-up). Profiles come from
// `npm run bench -- --shapes 1 --profile <dir>` (node --cpu-prof on the server).
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

const ROOT = new URL('..', import.meta.url).href

/** A path relative to the repository; code compiled by `--server dist` is named by its source. */
function path(url: string): string {
  const relative = url.replace(ROOT, '').replace(/^file:\/\//, '')
  const built = /^node_modules\/\.cache\/latchkey-bench\/dist\/(.*)\.js$/.exec(relative)
  return built ? `src/${built[1]}.ts` : relative
}

/** `function file:line` (for compiled code, the line of the JavaScript). */
function label(frame: ProfileNode['callFrame']): string {
  const name = frame.functionName || '(anonymous)'
  return frame.url ? `${name} ${path(frame.url)}:${frame.lineNumber + 1}` : name
}

/** Where code lives: src/<folder>/<file>, an npm package, node's internals, or V8's own entries. */
function area(frame: ProfileNode['callFrame']): string {
  const url = path(frame.url)
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return `npm ${pkg[1]}`
  if (url.startsWith('src/')) return url
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/')[0]}`
  return url === '' ? frame.functionName || '(native)' : url
}

export function summarize(profile: Profile, top = 25, skipSeconds = 0): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const areas = new Map<string, number>()
  let total = 0
  let idle = 0
  let at = 0
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0
    at += us
    if (at < skipSeconds * 1e6) return
    const node = byId.get(id)!
    if (node.callFrame.functionName === '(idle)') return void (idle += us)
    total += us
    self.set(label(node.callFrame), (self.get(label(node.callFrame)) ?? 0) + us)
    areas.set(area(node.callFrame), (areas.get(area(node.callFrame)) ?? 0) + us)
    const seen = new Set<string>()
    for (let up: number | undefined = id; up !== undefined; up = parent.get(up)) {
      const key = label(byId.get(up)!.callFrame)
      if (!seen.has(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + us)
      seen.add(key)
    }
  })
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`
  const list = (map: Map<string, number>, filter: (key: string) => boolean = () => true) =>
    [...map].filter(([key]) => filter(key)).sort((a, b) => b[1] - a[1]).slice(0, top).map(([key, us]) => `  ${pct(us)}  ${key}`)
  return [
    `busy ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s`,
    `self time by function (top ${top}):`,
    ...list(self),
    'self time by area:',
    ...list(areas),
    `inclusive time of Latchkey's own functions (src/, top ${top}):`,
    ...list(inclusive, (key) => / src\//.test(key)),
  ].join('\n')
}

if (process.argv[2]) {
  const profile = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Profile
  process.stdout.write(`${summarize(profile, Number(process.argv[3] ?? 25), Number(process.argv[4] ?? 0))}\n`)
}
