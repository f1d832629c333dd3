// What `serve` does once its options are read. Loaded only when serve runs: Fastify, the metrics and
// the logger are a third of a second of start-up that the other commands need not pay.
import { isClusterWorker, reportListening, runPrimary } from '../cluster.ts'
import { aggregateWorkerMetrics } from '../observability/cluster-metrics.ts'
import { composeDomain } from '../compose.ts'
import { checkServeRules } from '../config/serve-rules.ts'
import type { Config } from '../config/settings.ts'
import { demoFilePath, readDemoFile, seedDemo, writeDemoFile } from './dev-demo.ts'
import { startServer, type RunningServer } from '../server.ts'

/** Runs the service by the config: one process, the primary of --workers, or one of its workers. */
export async function runServe(config: Config): Promise<void> {
  if (isClusterWorker()) return serveWorker(config)
  if (config.workers > 1) return servePrimary(config)
  const server = await startServer(config)
  // Before the banner: whoever reads it may signal at once, and until a handler exists the
  // kernel's default for SIGTERM kills the process outright.
  stopOnSignal(() => server.close(), { announce: true })
  if (config.dev) await seedAndShowDemo(config, server.domain, server.url, server.adminUrl)
  printBanner(config, server.url, server.adminUrl)
  process.stdout.write(`Latchkey is listening on ${server.url}${config.dev ? ' (development mode)' : ''}\n`)
}

/** The development server's first start: the demo, made, kept for `latchkey demo` and the front door, and shown. */
async function seedAndShowDemo(config: Config, domain: RunningServer['domain'], url: string, adminUrl: string | undefined): Promise<void> {
  const demo = await seedDemo(domain, url)
  if (!demo) return
  const file = demoFilePath(config.database)
  if (file) writeDemoFile(file, demo)
  printDemo(url, demo, adminUrl)
}

/** Where to go, on every start: the front door, the console, the admin API, the demo again. */
function printBanner(config: Config, url: string, adminUrl: string | undefined): void {
  process.stdout.write(
    [
      ...(config.home ? [`  front door          ${url}/`] : []),
      `  developer console   ${url}/console`,
      ...(adminUrl ? [`  admin API           ${adminUrl}/admin/v1 (its OpenAPI document: ${adminUrl}/admin/v1/openapi.json)`] : []),
      ...(adminUrl ? [`Admin API is listening on ${adminUrl}`] : []),
      ...(config.dev && readDemoFile(demoFilePath(config.database)) ? ['  demo credentials    npm run -s latchkey -- demo (or the front door)'] : []),
      '',
    ].join('\n'),
  )
}

/** SIGTERM or SIGINT: drain in-flight requests, close the stores, exit 0; `announce`: saying so (not a worker). */
function stopOnSignal(close: () => Promise<void>, options: { announce?: boolean } = {}): void {
  let closing = false
  const say = (line: string) => options.announce && process.stdout.write(`${line}\n`)
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return
    closing = true
    say(`${signal}: stopping, after the requests in flight`)
    close().then(
      () => {
        say('Latchkey stopped')
        process.exit(0)
      },
      () => process.exit(1),
    )
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

/**
 * The primary of `--workers N`: checks the rules, migrates once and checks the database and Redis
 * answer (so a bad start is one line, not N), then supervises the workers. It seeds the demo and
 * prints the banner once, when the first worker listens.
 */
async function servePrimary(config: Config): Promise<never> {
  checkServeRules(config)
  const domain = await composeDomain(config)
  aggregateWorkerMetrics()
  let isDomainOpen = true
  const closeDomain = async () => {
    if (!isDomainOpen) return
    isDomainOpen = false
    await domain.runtime.close()
  }
  const code = await runPrimary({
    workers: config.workers,
    log: (line) => process.stderr.write(`${line}\n`),
    async onListening(url, adminUrl) {
      try {
        if (config.dev) await seedAndShowDemo(config, domain, url, adminUrl)
      } finally {
        await closeDomain()
      }
      // As one process prints it: every worker listens on the same admin address too.
      printBanner(config, url, adminUrl)
      process.stdout.write(`Latchkey is listening on ${url}${config.dev ? ' (development mode)' : ''} with ${config.workers} workers\n`)
    },
  })
  await closeDomain().catch(() => {})
  if (code === 0) process.stdout.write('Latchkey stopped\n')
  process.exit(code)
}

/** One worker of `--workers N`: serves, tells the primary its URL, drains on SIGTERM (from the primary). */
async function serveWorker(config: Config): Promise<void> {
  const running: { server?: RunningServer } = {}
  // Registered before start-up: a worker told to stop while still starting simply ends.
  stopOnSignal(async () => {
    await running.server?.close()
  })
  running.server = await startServer(config)
  reportListening(running.server.url, running.server.adminUrl)
}

function printDemo(url: string, demo: Awaited<ReturnType<typeof seedDemo>> & object, adminUrl?: string): void {
  process.stdout.write(
    [
      '',
      'First start: made a demo user and a demo app (`npm run -s latchkey -- demo` shows them again).',
      `  sign in as          ${demo.screenName} / ${demo.password}`,
      `  consumer key        ${demo.consumerKey}`,
      `  consumer secret     ${demo.consumerSecret}`,
      `  owner access token  ${demo.accessToken}`,
      `  owner token secret  ${demo.accessTokenSecret}`,
      `  callbacks           http://127.0.0.1:3000/callback, http://localhost:3000/callback; any app may ask for the PIN flow (oauth_callback=oob)`,
      `  try the PIN flow    node examples/pin-flow.mjs ${url} ${demo.consumerKey} ${demo.consumerSecret}`,
      `  admin token         ${demo.adminToken}`,
      ...(adminUrl ? [`  admin API           curl -H 'Authorization: Bearer ${demo.adminToken}' ${adminUrl}/admin/v1/apps`] : []),
      '',
    ].join('\n'),
  )
}
