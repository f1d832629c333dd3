// The test kit's start (issue 47): how long `import { startLatchkey } from 'latchkey/testing'` and
// `await startLatchkey()` take in a fresh Node process, beside a bare Fastify that imports itself and
// listens, measured the same way in the same run. Run by `npm run bench` (shape "start"), or alone:
// `npx tsx bench/start-up.ts [repeats]`. The compiled package (dist/) is what a test imports.
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'

const REPO_ROOT = join(import.meta.dirname, '..')

/** Each program prints the milliseconds from its first line to listening, then exits. */
const PROGRAMS = {
  latchkey: `const t = performance.now(); const { startLatchkey } = await import('latchkey/testing'); const l = await startLatchkey(); console.log(performance.now() - t); await l.close()`,
  fastify: `const t = performance.now(); const { default: Fastify } = await import('fastify'); const app = Fastify(); app.get('/', async () => ({})); await app.listen({ host: '127.0.0.1', port: 0 }); console.log(performance.now() - t); await app.close()`,
} as const

export interface StartUp {
  /** Median milliseconds to a listening test mode, module loading included. */
  latchkeyMs: number
  /** The same for a bare Fastify, the baseline. */
  fastifyMs: number
}

function timeOnce(program: string): number {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } })
  const ms = Number(result.stdout.trim().split('\n')[0])
  if (result.status !== 0 || !Number.isFinite(ms)) throw new Error(`start-up program failed: ${result.stderr || result.stdout}`)
  return ms
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Alternates the two programs `repeats` times (dist/ must be built: npm run build). */
export function measureStartUp(repeats: number): StartUp {
  const latchkey: number[] = []
  const fastify: number[] = []
  for (let i = 0; i < repeats; i++) {
    latchkey.push(timeOnce(PROGRAMS.latchkey))
    fastify.push(timeOnce(PROGRAMS.fastify))
  }
  return { latchkeyMs: median(latchkey), fastifyMs: median(fastify) }
}

/** The line the bench prints: the target is under a second. */
export const startUpLine = ({ latchkeyMs, fastifyMs }: StartUp): string =>
  `start: startLatchkey() ${latchkeyMs.toFixed(0)} ms to listening (target < 1000 ms: ${latchkeyMs < 1000 ? 'met' : 'MISSED'}), bare Fastify ${fastifyMs.toFixed(0)} ms, ratio ${(latchkeyMs / fastifyMs).toFixed(1)}`

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${startUpLine(measureStartUp(Number(process.argv[2] ?? 5)))}\n`)
}
