// `npx tsx bench/writes-micro.ts [calls] [repeats] [token|request]`: the write paths of shapes 3 and 4, in-process on
// a real SQLite file opened as `serve` opens it: POST /oauth2/token for an app that has its token
// (issueOrReuseBearerToken) and POST /oauth/request_token (issueRequestToken). Each is run one call
// at a time (µs per call) and as 32 callers in a closed loop (µs per call, and per-call latency
// percentiles: the p99 and max show a WAL checkpoint landing in a request). Medians of `repeats`
// runs. Pinned to CPU 0 when taskset exists. Not a test: timings on a shared machine vary.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DomainDeps } from '../src/domain/deps.ts'
import { issueRequestToken } from '../src/domain/oauth1/request-token.ts'
import type { RequestInput } from '../src/domain/request.ts'
import { issueOrReuseBearerToken } from '../src/domain/oauth2/bearer-token.ts'
import { newKeyring, serializeKeyring } from '../src/storage/sealing/keyring.ts'
import { openDomain, registerBench } from './setup.ts'
import { encode, fastSigner } from './sign.ts'

if (spawnSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' }).status !== 0) console.log('(not pinned)')
const N = Number(process.argv[2] ?? 10_000)
const REPEATS = Number(process.argv[3] ?? 5)
const ONLY = process.argv[4]
const CALLERS = 32
const HOST = '127.0.0.1:8443'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
const cpuSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start)
  return used.user + used.system
}
const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number

interface Run {
  perCallUs: number
  /** Process CPU time (user + system, every thread) per call: steadier than wall time on a shared machine. */
  cpuUs: number
  p50Us?: number
  p99Us?: number
  maxUs?: number
}

/** One call after another. */
async function sequential(call: () => Promise<unknown>): Promise<Run> {
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let i = 0; i < N; i++) await call()
  return { perCallUs: ((performance.now() - started) * 1000) / N, cpuUs: cpuSince(cpu) / N }
}

/** CALLERS callers, each starting its next call when its last one answered, N calls in all. */
async function closedLoop(call: () => Promise<unknown>): Promise<Run> {
  const latencies = new Float64Array(N)
  let next = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < N) {
        const i = next++
        const t0 = performance.now()
        await call()
        latencies[i] = (performance.now() - t0) * 1000
      }
    }),
  )
  const perCallUs = ((performance.now() - started) * 1000) / N
  const cpuUs = cpuSince(cpu) / N
  latencies.sort()
  return { perCallUs, cpuUs, p50Us: percentile(latencies, 0.5), p99Us: percentile(latencies, 0.99), maxUs: latencies[N - 1] as number }
}

async function measure(name: string, call: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < N / 5; i++) await call()
  const seq: Run[] = []
  const loop: Run[] = []
  for (let r = 0; r < REPEATS; r++) {
    seq.push(await sequential(call))
    loop.push(await closedLoop(call))
  }
  const m = (runs: Run[], key: keyof Run) => median(runs.map((run) => run[key] as number)).toFixed(1).padStart(8)
  console.log(`${name}`)
  console.log(`  one at a time     ${m(seq, 'perCallUs')} µs/call  cpu ${m(seq, 'cpuUs')} µs/call`)
  console.log(`  ${CALLERS} callers        ${m(loop, 'perCallUs')} µs/call  cpu ${m(loop, 'cpuUs')} µs/call   latency p50 ${m(loop, 'p50Us')} µs  p99 ${m(loop, 'p99Us')} µs  max ${m(loop, 'maxUs')} µs`)
}

const dir = mkdtempSync(join(tmpdir(), 'latchkey-writes-'))
const deps: DomainDeps = await openDomain({ database: join(dir, 'writes.sqlite') }, serializeKeyring(newKeyring()), { rateLimitMultiplier: 1e9 })
try {
  const creds = await registerBench(deps)
  const basic = Buffer.from(`${encode(creds.consumerKey)}:${encode(creds.consumerSecret)}`).toString('base64')
  const tokenInput: RequestInput = {
    method: 'POST', scheme: 'https', host: HOST, path: '/oauth2/token', query: '',
    authorization: `Basic ${basic}`, contentType: 'application/x-www-form-urlencoded', body: 'grant_type=client_credentials',
    isSecure: true, rateLimit: { resource: '/oauth2/token' }, clientAddress: '127.0.0.1',
  }
  const sign = fastSigner({
    method: 'POST',
    baseUri: `https://${HOST}/oauth/request_token`,
    consumer: { key: creds.consumerKey, secret: creds.consumerSecret },
    oauth: [['oauth_callback', 'oob']],
  })
  const requestTokenInput = (): RequestInput => ({
    method: 'POST', scheme: 'https', host: HOST, path: '/oauth/request_token', query: '',
    authorization: sign(), contentType: undefined, body: undefined,
    isSecure: true, rateLimit: { resource: '/oauth/request_token' }, clientAddress: '127.0.0.1',
  })

  console.log(`${N} calls a run, ${REPEATS} runs of each, medians; after ${N / 5} calls to warm up`)
  const first = await issueOrReuseBearerToken(deps, tokenInput)
  if (ONLY !== 'request') await measure('POST /oauth2/token, existing token (issueOrReuseBearerToken)', async () => {
    const issued = await issueOrReuseBearerToken(deps, tokenInput)
    if (issued.token !== first.token) throw new Error('a second bearer token')
  })
  if (ONLY !== 'token') await measure('POST /oauth/request_token (issueRequestToken)', () => issueRequestToken(deps, requestTokenInput()))
} finally {
  await deps.runtime.close()
  rmSync(dir, { recursive: true, force: true })
}
