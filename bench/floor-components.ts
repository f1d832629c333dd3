// `npx tsx bench/floor-components.ts [rounds]`: the floor (shape 0, GET /healthz) taken apart under
// the bench's load: the bare node:http ceiling, bare Fastify with the same route (bench/bare-fastify.ts),
// `latchkey serve` with `--access-log off`, and `latchkey serve` as the bench runs it. Each is
// measured in turn, round after round, with the bench's load generator; the medians of the server's
// CPU µs per request tell what Fastify, Latchkey's hooks and the access line each add. Same rules as
// the bench: a quiet machine, nothing else running.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newKeyring, serializeKeyring } from '../src/storage/sealing/keyring.ts'
import type { LoadResult } from './load.ts'
import type { BenchCredentials } from './shapes.ts'
import { median, runGenerator } from './measure.ts'
import { CEILING_LISTENING, CPU, LATCHKEY_LISTENING, canPin, clockTicksPerSecond, latchkeyCommand, serverEnv, startCeiling, startServer, type ServerProcess } from './servers.ts'

const rounds = Number(process.argv[2] ?? 5)
const pin = canPin()
const cpu = (role: keyof typeof CPU) => (pin ? CPU[role] : undefined)
const dir = mkdtempSync(join(tmpdir(), 'latchkey-floor-'))

const latchkey = (name: string, extra: string[]) => () =>
  startServer({
    command: latchkeyCommand('tsx', ['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--database', join(dir, `${name}.sqlite`), '--log-level', 'info', ...extra]),
    env: serverEnv({ LATCHKEY_MASTER_KEY: serializeKeyring(newKeyring()) }),
    cpu: cpu('server'),
    logFile: join(dir, `${name}.log`),
    pattern: LATCHKEY_LISTENING,
  })

const SERVERS: Array<[string, () => Promise<ServerProcess>]> = [
  ['bare node:http (the ceiling)', () => startCeiling(cpu('server'), join(dir, 'ceiling.log'))],
  ['bare Fastify, the same route', () => startServer({ command: [process.execPath, '--import', 'tsx', 'bench/bare-fastify.ts'], env: serverEnv({}), cpu: cpu('server'), logFile: join(dir, 'fastify.log'), pattern: CEILING_LISTENING })],
  ['Latchkey, --access-log off', latchkey('quiet', ['--access-log', 'off'])],
  ['Latchkey (shape 0)', latchkey('serve', [])],
]

/** GET /healthz signs nothing; the load generator still picks a credential per request. */
const NO_CREDENTIALS: BenchCredentials = { consumerKey: '', consumerSecret: '', accessToken: '', accessTokenSecret: '' }

const servers: ServerProcess[] = []
try {
  for (const [, start] of SERVERS) servers.push(await start())
  const cpuUs = SERVERS.map(() => [] as number[])
  for (let round = 0; round < rounds; round++) {
    for (const [i, server] of servers.entries()) {
      const { host, port, pid } = server
      const result = await runGenerator<LoadResult>(
        { mode: 'load', host, port, kind: 'health', credentials: [NO_CREDENTIALS], connections: 32, warmupSeconds: 1, durationSeconds: 5, serverPid: pid, clockTicksPerSecond: clockTicksPerSecond() },
        { cpu: cpu('client'), dir },
      )
      if (result.errors > 0) throw new Error(`${SERVERS[i]![0]}: ${result.errors} failed requests; first: ${result.firstError}`)
      cpuUs[i]!.push(result.serverCpuUsPerRequest!)
    }
  }
  const ceiling = median(cpuUs[0]!)
  console.log(`server CPU µs per request, the median of ${rounds} rounds${pin ? '' : ' (not pinned)'}; CPU×ceil = ceiling ÷ this`)
  for (const [i, [name]] of SERVERS.entries()) {
    const us = median(cpuUs[i]!)
    const added = i === 0 ? '' : `  +${(us - median(cpuUs[i - 1]!)).toFixed(1)} over the line above`
    console.log(`${us.toFixed(1).padStart(7)} µs  ${(ceiling / us).toFixed(3)}  ${name}${added}`)
  }
} finally {
  await Promise.all(servers.map((server) => server.stop()))
  rmSync(dir, { recursive: true, force: true })
}
