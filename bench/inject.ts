// `npx tsx bench/inject.ts [calls] [--access-log off] [--metrics off]`: CPU µs of the Latchkey process per request of
// shapes 0–3, the whole Fastify application (hooks, access line, routing, the route, the reply)
// through Fastify's inject, in-process: no socket, no load generator. It is the part of the bench's
// CPU µs per request that is Latchkey's own, measured as CPU time and the cheapest of several
// rounds, so it can compare two commits on a loaded machine where req/s cannot (docs/performance.md).
// The app is built as `latchkey serve` builds it in production behind a trusted proxy: metrics on,
// the access log on (to /dev/null).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { InjectOptions } from 'fastify'
import { appMetricsOf, composeApp } from '../src/composition/apps.ts'
import { composeDomain } from '../src/composition/root.ts'
import { loadConfig } from '../src/config/load.ts'
import { systemClock } from '../src/domain/clock.ts'
import { createObservability } from '../src/observability/setup.ts'
import { createLogger } from '../src/logging.ts'
import { newKeyring, serializeKeyring } from '../src/storage/sealing/keyring.ts'
import { openDomain, registerBench } from './setup.ts'
import { encode, fastSigner } from './sign.ts'

if (spawnSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' }).status !== 0) console.log('(not pinned)')
const N = Number(process.argv[2] ?? 10_000)
const switchedOff = (flag: string) => process.argv.some((arg, i) => arg === flag && process.argv[i + 1] === 'off')
const accessLog = !switchedOff('--access-log')
// Without metrics (no observer, no storage wrapper, no HTTP hook): what observability costs a request.
const metricsOn = !switchedOff('--metrics')
const ROUNDS = 5

const dir = mkdtempSync(join(tmpdir(), 'latchkey-inject-'))
const masterKey = serializeKeyring(newKeyring())
const database = join(dir, 'inject.sqlite')
const setup = await openDomain({ database }, masterKey)
const creds = await registerBench(setup).finally(() => setup.runtime.close())
// The domain as `latchkey serve` composes it: metrics on, every storage call measured.
const config = loadConfig({ env: { LATCHKEY_MASTER_KEY: masterKey }, flags: { database, rateLimitMultiplier: 1e9 } })
const observability = createObservability(config, { isClusterWorker: false })
const deps = await composeDomain(config, systemClock, { observed: metricsOn ? observability.observed : undefined })
try {
  // The production logger, writing to /dev/null.
  const logger = createLogger({ dev: false, level: 'info', fd: openSync('/dev/null', 'w') })
  const app = await composeApp({
    domain: deps,
    logger,
    metrics: metricsOn ? appMetricsOf(config, observability) : undefined,
    http: { dev: false, publicUrl: undefined, trustProxy: ['127.0.0.1'], cookieSecret: 'inject-bench-cookie-secret-0123456789abcdef', accessLog },
  })
  await app.ready()
  const host = '127.0.0.1:8443'
  const proxy = { host, 'x-forwarded-proto': 'https' }
  const sign = fastSigner({
    method: 'GET',
    baseUri: `https://${host}/1.1/account/verify_credentials.json`,
    consumer: { key: creds.consumerKey, secret: creds.consumerSecret },
    token: { key: creds.accessToken, secret: creds.accessTokenSecret },
  })
  const basic = `Basic ${Buffer.from(`${encode(creds.consumerKey)}:${encode(creds.consumerSecret)}`).toString('base64')}`
  const tokenRequest = {
    method: 'POST' as const,
    url: '/oauth2/token',
    headers: { ...proxy, authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials',
  }
  const first = await app.inject(tokenRequest)
  const bearer = (JSON.parse(first.body) as { access_token: string }).access_token

  const shapes: Array<[string, () => InjectOptions]> = [
    ['(0) GET /healthz', () => ({ method: 'GET', url: '/healthz', headers: proxy })],
    ['(1) verify_credentials, OAuth 1.0a', () => ({ method: 'GET', url: '/1.1/account/verify_credentials.json', headers: { ...proxy, authorization: sign() } })],
    ['(2) rate_limit_status, Bearer', () => ({ method: 'GET', url: '/1.1/application/rate_limit_status.json?resources=application', headers: { ...proxy, authorization: `Bearer ${bearer}` } })],
    ['(3) oauth2/token, existing token', () => tokenRequest],
  ]
  console.log(`${N} requests a shape after ${N / 5} to warm up; CPU µs per request, the cheapest of ${ROUNDS} rounds; access log ${accessLog ? 'on' : 'off'}, metrics ${metricsOn ? 'on' : 'off'}`)
  // Shape 0 again at the end: the first shape measured warms up what every other shares.
  // LATCHKEY_INJECT_SHAPES=1,2: only those (for a profile of one shape).
  const only = process.env.LATCHKEY_INJECT_SHAPES?.split(',')
  const chosen = only ? shapes.filter(([name]) => only.includes(name.slice(1, 2))) : [...shapes, shapes[0]!]
  for (const [name, make] of chosen) {
    const round = Math.ceil(N / ROUNDS)
    const send = async () => {
      const answer = await app.inject(make())
      if (answer.statusCode !== 200) throw new Error(`${name}: ${answer.statusCode} ${answer.body}`)
    }
    for (let i = 0; i < N / 5; i++) await send()
    let least = Infinity
    for (let r = 0; r < ROUNDS; r++) {
      const started = process.cpuUsage()
      for (let i = 0; i < round; i++) await send()
      const used = process.cpuUsage(started)
      least = Math.min(least, (used.user + used.system) / round)
    }
    console.log(`${least.toFixed(1).padStart(8)} µs  ${name}`)
  }
  await app.close()
} finally {
  await deps.runtime.close()
  rmSync(dir, { recursive: true, force: true })
}
