// The test mode (`latchkey serve --test`): Latchkey as the stand-in a client's test suite drives.
// docs/test-kit.md says what it is for and what each control call does.
import type { Config, SettingName } from './config/settings.ts'
import { createAdminToken } from './domain/admin/admin-tokens.ts'
import { consentToAuthorizationRequest, consentToRequestToken, type ConsentOutcome, type Decision } from './domain/test-kit/consent.ts'
import { startServer, type RunningServer } from './server.ts'
import type { FaultQueue } from './web/test-kit/faults.ts'
import type { RequestJournal } from './web/test-kit/journal.ts'
import { ConfigError, loadConfig } from './config/load.ts'
import { findByScreenName } from './domain/registry/users.ts'
import { applySeed, readSeedFile, type SeedResult } from './domain/test-kit/seed.ts'
import { parseSeed, SeedError } from './domain/test-kit/seed-check.ts'
import type { Seed } from './domain/test-kit/seed-schema.ts'

/** The name of the admin token the test mode makes at start, for the control calls. */
export const TEST_ADMIN_TOKEN = 'test'

/** The one line the test mode writes on stdout once it listens, for a fixture in any language to read. */
export interface TestStartLine {
  url: string
  admin_url: string
  admin_token: string
  /** What the seed made (`--seed`), every value included; null without a seed. */
  seeded: SeedResult | null
}

/**
 * Starts the service in test mode (the config's `test` is set; checkServeRules holds it to its
 * limits): its seed (`seed`, else the file of `--seed`) checked whole before anything starts, its
 * limits taken as the endpoints' limits; then listens, makes an admin token, applies the seed and
 * keeps the state a reset goes back to.
 */
export async function startTestMode(config: Config, seed?: unknown): Promise<{ server: RunningServer; startLine: TestStartLine }> {
  const seedInput = seed ?? (config.seed === undefined ? undefined : await refusedAsSetting(() => readSeedFile(config.seed!)))
  const limits = seedInput === undefined ? undefined : (await refusedAsSetting(async () => parseSeed(seedInput))).limits
  const server = await startServer(limits ? withSeedLimits(config, limits) : config)
  try {
    if (!server.testKit || !server.adminUrl) throw new Error('the test mode needs its clock, its kept state and the admin listener')
    const admin = await createAdminToken(server.domain, TEST_ADMIN_TOKEN)
    const seeded = seedInput === undefined ? null : await refusedAsSetting(() => applySeed(server.domain, seedInput))
    if (config.autoConsent !== undefined && !(await findByScreenName(server.domain, config.autoConsent))) {
      throw new ConfigError(`invalid setting autoConsent (${config.autoConsent}): no person has that screen name (seed them with --seed)`)
    }
    await server.testKit.keep()
    return { server, startLine: { url: server.url, admin_url: server.adminUrl, admin_token: admin.token, seeded } }
  } catch (error) {
    await server.close()
    throw error
  }
}

/** A seed's limits over the settings': its endpoints' limits, and its multiplier. */
function withSeedLimits(config: Config, limits: NonNullable<Seed['limits']>): Config {
  return {
    ...config,
    rateLimits: { ...config.rateLimits, ...Object.fromEntries(Object.entries(limits.endpoints ?? {}).filter((entry): entry is [string, number] => entry[1] !== undefined)) },
    rateLimitMultiplier: limits.multiplier ?? config.rateLimitMultiplier,
  }
}

/** A bad seed stops the start in one line, as any bad setting does: every field's path and reason. */
async function refusedAsSetting<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof SeedError) throw new ConfigError(`invalid setting seed: ${error.issues.map((issue) => `${issue.path}: ${issue.reason}`).join('; ')}`)
    throw error
  }
}

/** What `startLatchkey` takes: settings as `serve --test` flags would give them (docs/config.md names each). */
export interface StartOptions {
  /** A seed (docs/seed.schema.json) applied at start: people, apps, ready credentials, limits. */
  seed?: unknown
  /** A screen name: every authorize page approves at once as this person (`--auto-consent`). */
  autoConsent?: string
  /** Any other setting, by its name in docs/config.md (e.g. `{ timestampSkewSeconds: 60 }`). */
  settings?: Partial<Record<SettingName, unknown>>
}

/** A request token, or an OAuth 2.0 authorization request (the authorize URL's parameters), answered as a person would. */
export type ConsentRequest = { screenName: string; decision: Decision } & ({ oauthToken: string } | { query: Record<string, string> })

/** A running test-mode Latchkey in this process (`startLatchkey`). */
export interface RunningLatchkey {
  url: string
  adminUrl: string
  /** For the control calls over HTTP, as any other language uses them (docs/test-kit.md). */
  adminToken: string
  /** What the seed made, every value included; null without a seed. */
  seeded: SeedResult | null
  /**
   * What the consent page would have answered: for a request token `{ location }` (the callback
   * with the verifier, or `denied=`), `{ pin }` for `oob`, or `{ denied: true }`; for an OAuth 2.0
   * request `{ location }` (code and state, or `error=access_denied`).
   */
  consent(request: ConsentRequest): Promise<ConsentOutcome>
  /** The service's clock: every lifetime, window and timestamp check follows it. */
  clock: {
    now(): Date
    advance(seconds: number): void
    /** Puts the clock at `moment` (not before the start); throws when refused. */
    set(moment: Date): void
  }
  /** X's failures on demand: the next `times` calls to `endpoint` answer as X does (docs/test-kit-controls.md). */
  faults: Pick<FaultQueue, 'add' | 'list' | 'clear'>
  /** The journal of the requests the service answered, newest first. */
  requests: Pick<RequestJournal, 'list' | 'clear'>
  /** Back to the state at start: what was made since is gone, every nonce, limit count, fault and journal entry forgotten. */
  reset(): Promise<void>
  /** Stops listening and closes the database; nothing is left behind. */
  close(): Promise<void>
}

/**
 * `import { startLatchkey } from 'latchkey/testing'`: the test mode in the test's own process, on
 * free loopback ports and an in-memory database. Close it when done (an `after` hook).
 */
export async function startLatchkey(options: StartOptions = {}): Promise<RunningLatchkey> {
  const flags = { ...options.settings, test: true, ...(options.autoConsent ? { autoConsent: options.autoConsent } : {}) }
  const { server, startLine } = await startTestMode(loadConfig({ env: {}, flags }), options.seed)
  const kit = server.testKit!
  return {
    url: startLine.url,
    adminUrl: startLine.admin_url,
    adminToken: startLine.admin_token,
    seeded: startLine.seeded,
    consent: ({ screenName, decision, ...request }) =>
      'oauthToken' in request
        ? consentToRequestToken(server.domain, { screenName, decision, oauthToken: request.oauthToken })
        : consentToAuthorizationRequest(server.domain, { screenName, decision, query: request.query }),
    clock: {
      now: () => new Date(kit.clock.nowMs()),
      advance: (seconds) => kit.clock.advance(Math.round(seconds * 1000)),
      set(moment) {
        if (!kit.clock.set(moment.getTime())) throw new RangeError('the clock cannot go back before the server started')
      },
    },
    faults: { add: (rule) => kit.faults.add(rule), list: () => kit.faults.list(), clear: () => kit.faults.clear() },
    requests: { list: (filter) => kit.journal.list(filter), clear: () => kit.journal.clear() },
    reset: () => kit.reset(),
    close: () => server.close(),
  }
}
