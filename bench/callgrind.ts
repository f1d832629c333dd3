// `npx tsx bench/callgrind.ts [--kinds health,verify,bearer,token] [--requests 2000] [--warmup 3000]`:
// machine instructions the server executes per request, counted by valgrind's callgrind. Unlike
// req/s or CPU time, the count of GET /healthz does not depend on what else the machine is doing.
// The credential paths' counts do: group commit, the checkpoint timer and GC threads made them vary
// by up to 2 × from run to run on a loaded machine, so compare those over several runs
// (docs/performance.md). The server is `latchkey serve` compiled
// from the current sources (as `--server dist` of the bench), production mode behind a trusted
// proxy, access log on, run under valgrind; for each kind, `--warmup` requests (so that V8 has
// compiled the hot paths), then the counters are zeroed, `--requests` requests are sent on
// `--connections` keep-alive connections, and the counters dumped: instructions ÷ requests.
// Every thread of the process counts (V8's compiler and GC threads, the checkpoint worker).
// Extra arguments after `--` go to `latchkey serve` (for example `-- --access-log off`).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { newKeyring, serializeKeyring } from '../src/storage/sealing/keyring.ts'
import { Connection } from './http-client.ts'
import { precheck } from './prechecks.ts'
import { LATCHKEY_LISTENING, buildSources, latchkeyCommand, serverEnv, startServer } from './servers.ts'
import { openDomain, registerBench } from './setup.ts'
import { buildRequest, type BenchCredentials, type RequestKind, type Target } from './shapes.ts'

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    kinds: { type: 'string', default: 'health,verify,bearer,token' },
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '4' },
    keep: { type: 'boolean', default: false },
  },
})
const requests = Number(opts.requests)
const warmup = Number(opts.warmup)
const connections = Number(opts.connections)
const kinds = opts.kinds.split(',').map((k) => k.trim()) as RequestKind[]

/** `count` requests of `kind` over `connections` connections, each one request in flight; throws on a non-2xx. */
async function send(target: Target, kind: RequestKind, creds: BenchCredentials, count: number): Promise<void> {
  let left = count
  const worker = async () => {
    const connection = new Connection(target.host, target.port)
    try {
      while (left > 0) {
        left--
        const answer = await connection.request(buildRequest(kind, target, creds))
        if (answer.status < 200 || answer.status > 299) throw new Error(`${kind}: ${answer.status} ${answer.body.slice(0, 200)}`)
      }
    } finally {
      connection.close()
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
}

/** The total of the events line of a callgrind output file (Ir first). */
function instructions(file: string): number {
  const text = readFileSync(file, 'utf8')
  const line = /^(?:summary|totals):\s+(\d+)/m.exec(text)
  if (!line) throw new Error(`no totals in ${file}`)
  return Number(line[1])
}

const control = (...args: string[]) => {
  const result = spawnSync('callgrind_control', args, { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`callgrind_control ${args.join(' ')}: ${result.stderr}${result.stdout}`)
}

const dir = mkdtempSync(join(tmpdir(), 'latchkey-callgrind-'))
const database = join(dir, 'bench.sqlite')
const masterKey = serializeKeyring(newKeyring())
try {
  buildSources()
  const deps = await openDomain({ database }, masterKey)
  const registered = await registerBench(deps).finally(() => deps.runtime.close())
  const serveArgs = [
    ...['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--database', database, '--log-level', 'info'],
    ...['--rate-limit-multiplier', '1000000'],
    ...positionals,
  ]
  const out = join(dir, 'callgrind.out')
  const command = [
    ...['valgrind', '--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${out}`, '--dump-instr=no', '--collect-systime=no'],
    ...latchkeyCommand('dist', serveArgs),
  ]
  const server = await startServer({ command, env: serverEnv({ LATCHKEY_MASTER_KEY: masterKey }), cpu: undefined, logFile: join(dir, 'server.log'), pattern: LATCHKEY_LISTENING, timeoutMs: 600_000 })
  try {
    const creds = await precheck(server, registered)
    for (const kind of kinds) {
      await send(server, kind, creds, warmup)
      control('-z', String(server.pid))
      await send(server, kind, creds, requests)
      const before = new Set(readdirSync(dir))
      control('-d', String(server.pid))
      const dumped = readdirSync(dir).filter((f) => f.startsWith('callgrind.out') && !before.has(f))
      if (dumped.length === 0) throw new Error('callgrind wrote no dump')
      const total = dumped.reduce((sum, f) => sum + instructions(join(dir, f)), 0)
      console.log(`${kind.padEnd(8)} ${(total / requests / 1000).toFixed(1).padStart(8)} k instructions / request  (${requests} requests after ${warmup})`)
    }
  } finally {
    await server.stop(120_000)
  }
} finally {
  if (opts.keep) console.log(`kept ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
}
