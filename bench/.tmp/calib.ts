import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { runGenerator } from '../measure.ts'
import { startCeiling, startServer, serverEnv, CEILING_LISTENING, clockTicksPerSecond } from '../servers.ts'
import type { LoadResult } from '../load.ts'
const dir = mkdtempSync(join(tmpdir(), 'calib-'))
const creds = { consumerKey: 'zuEu2BavEfkMXAPnY3eOQlBwW', consumerSecret: '7XRiGXIW6gmifTGJoiTNR1tughsIqoA4n0widipchp0FqOvUfv', accessToken: '892158008486279-1zpNKdgYfbB0eMOvYUO6zcDznwiUJD', accessTokenSecret: '3lIeuxty4chlJ8miYIeeSmyhDJKu0BbCHFT0TMNmp0bAk' }
const ceiling = await startCeiling(0, join(dir, 'c.log'))
const minimal = await startServer({ command: [process.execPath, '--import', 'tsx', 'bench/.tmp/minimal.ts'], env: serverEnv({ BENCH_CREDS: JSON.stringify(creds) }), cpu: 0, logFile: join(dir, 'm.log'), pattern: CEILING_LISTENING })
const cfg = (s: typeof ceiling) => ({ mode: 'load' as const, host: s.host, port: s.port, kind: 'verify' as const, credentials: [creds], connections: 32, warmupSeconds: 1, durationSeconds: 5, serverPid: s.pid, clockTicksPerSecond: clockTicksPerSecond() })
for (let r = 0; r < 3; r++) {
  const c = await runGenerator<LoadResult>(cfg(ceiling), { cpu: 1, dir })
  const m = await runGenerator<LoadResult>(cfg(minimal), { cpu: 1, dir })
  console.log(`minimal ${m.rps.toFixed(0)} (${m.errors} err) ceiling ${c.rps.toFixed(0)} ratio ${(m.rps / c.rps).toFixed(3)} cpu/req ${m.serverCpuUsPerRequest?.toFixed(1)} vs ${c.serverCpuUsPerRequest?.toFixed(1)} (ceil cpu ${c.serverCpuPercent?.toFixed(0)}%)`)
}
await ceiling.stop(); await minimal.stop()
