// What `serve` does once its options are read. Loaded only when serve runs: Fastify, the metrics and
// the logger are a third of a second of start-up that the other commands need not pay.
import { isClusterWorker, reportListening, runPrimary } from '../cluster.ts'
import { composePrimary } from '../composition/service.ts'
import { checkServeRules } from '../config/serve-rules.ts'
import type { Config } from '../config/settings.ts'
import type { Logger } from 'pino'
import { closeLog, createLogger } from '../logging.ts'
import { demoFilePath, keepDemoWebsite, readDemoFile, seedDemo, writeDemoFile } from '../composition/dev-demo.ts'
import { sayDevelopmentRetired, startServer, type RunningServer } from '../server.ts'
import { startTestMode } from '../testing.ts'

/**
 * How serve speaks to the operator on stdout: in development, lines of text; in production, JSON
 * log lines like every other line there (`fields` then go with the message).
 */
type Say = (message: string, fields?: Record<string, unknown>) => void

const sayAsText: Say = (message) => void process.stdout.write(`${message}\n`)
/** Said at info whatever --log-level is: the start and stop lines were always written, and still are. */
const sayAsLog = (logger: Logger): Say => {
  const voice = logger.child({}, { level: 'info' })
  return (message, fields = {}) => voice.info(fields, message)
}

/** Runs the service by the config: one process, the primary of --workers, or one of its workers. */
export async function runServe(config: Config): Promise<void> {
  if (config.test) return serveForTests(config)
  if (isClusterWorker()) return serveWorker(config)
  if (config.workers > 1) return servePrimary(config)
  const server = await startServer(config)
  const say = config.dev ? sayAsText : sayAsLog(server.logger)
  // Before the banner: whoever reads it may signal at once, and until a handler exists the
  // kernel's default for SIGTERM kills the process outright.
  stopOnSignal(() => server.close(), { say, written: () => closeLog(server.logger) })
  if (config.dev) await seedAndShowDemo(config, server.domain, server.url, server.adminUrl)
  sayListening(config, say, server.url, server.adminUrl)
}

/** The test mode: its one JSON line on stdout once it listens (its log goes to stderr). */
async function serveForTests(config: Config): Promise<void> {
  const { server, startLine } = await startTestMode(config)
  stopOnSignal(() => server.close(), { written: () => closeLog(server.logger) })
  process.stdout.write(`${JSON.stringify(startLine)}\n`)
}

/** The development server's first start: the demo, made, kept for `latchkey demo` and the front door, and shown. */
async function seedAndShowDemo(config: Config, domain: RunningServer['domain'], url: string, adminUrl: string | undefined): Promise<void> {
  const file = demoFilePath(config.database)
  const demo = await seedDemo(domain, url)
  if (!demo) {
    const kept = readDemoFile(file)
    if (kept) await keepDemoWebsite(domain, kept, url)
    return
  }
  if (file) writeDemoFile(file, demo)
  printDemo(url, demo, adminUrl)
}

/**
 * Where to go, on every start. In development: the front door, the console and the demo, then the
 * listeners. In production one log line, whose addresses are those clients use (`--public-url`);
 * the listen address is where the proxy sends them.
 */
function sayListening(config: Config, say: Say, url: string, adminUrl: string | undefined, workers?: number): void {
  const withWorkers = workers ? ` with ${workers} workers` : ''
  if (!config.dev) {
    const publicUrl = config.publicUrl ? new URL(config.publicUrl).origin : undefined
    const pages = publicUrl ? { ...(config.home ? { frontDoor: `${publicUrl}/` } : {}), console: `${publicUrl}/console` } : {}
    say('Latchkey is listening', { url, ...(publicUrl ? { publicUrl } : {}), ...pages, ...(adminUrl ? { adminUrl } : {}), ...(workers ? { workers } : {}) })
    return
  }
  process.stdout.write(
    [
      ...(config.home ? [`  front door          ${url}/`] : []),
      `  developer console   ${url}/console`,
      ...(readDemoFile(demoFilePath(config.database)) ? ['  demo credentials    npm run -s latchkey -- demo (or the front door)'] : []),
      ...(adminUrl ? [`Admin API is listening on ${adminUrl}`] : []),
      '',
    ].join('\n'),
  )
  say(`Latchkey is listening on ${url} (development mode)${withWorkers}`)
}

/** SIGTERM or SIGINT: drain in-flight requests, close the stores, exit 0; `say`: saying so (not a worker), `written` before the exit. */
function stopOnSignal(close: () => Promise<void>, options: { say?: Say; written?: () => Promise<void> } = {}): void {
  let closing = false
  const say: Say = options.say ?? (() => {})
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return
    closing = true
    say(`${signal}: stopping, after the requests in flight`, { signal })
    close().then(
      () => {
        say('Latchkey stopped')
        void (options.written?.() ?? Promise.resolve()).then(() => process.exit(0))
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
  const domain = await composePrimary(config)
  const logger = config.dev ? undefined : createLogger({ dev: false, level: config.logLevel, bufferBytes: config.logBufferBytes })
  const say = logger ? sayAsLog(logger) : sayAsText
  // Before any worker listens: a development database's admin token and demo stop in production.
  if (logger) await sayDevelopmentRetired(domain, config.database, logger)
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
      // As one process says it: every worker listens on the same admin address too.
      sayListening(config, say, url, adminUrl, config.workers)
    },
  })
  await closeDomain().catch(() => {})
  if (code === 0) say('Latchkey stopped')
  if (logger) await closeLog(logger)
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
