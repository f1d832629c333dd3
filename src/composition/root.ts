import { existsSync } from 'node:fs'
import type { Config } from '../config/settings.ts'
import { systemClock, type Clock } from '../domain/clock.ts'
import type { DomainDeps, DomainLimiters, DomainSettings } from '../domain/deps.ts'
import type { DomainObserver } from '../domain/observe.ts'
import { createFailureLog, withFailureLog } from '../domain/console/signature-failures.ts'
import { createIdGenerator } from '../domain/ids.ts'
import { SERVICE_LIMITS, effectiveLimits } from '../domain/rate-limit-table.ts'
import { createSignInThrottle, type SignInThrottle } from '../domain/sign-in.ts'
import { ConfigError } from '../config/load.ts'
import type { Observed } from '../observability/setup.ts'
import { KeyringError, newKeyring, openStorage, resolveKeyringSource, type KeyringSource, type Storage } from '../storage/index.ts'
import { layeredStorage } from './store-layers.ts'
import { createWebhookClient } from './webhook-client.ts'
import { createHandOutTally } from '../domain/oauth2/hand-out-tally.ts'

/** The slice of the config the domain reads. */
export function domainSettings(config: Config): DomainSettings {
  return {
    requestTokenTtlSeconds: config.requestTokenTtlSeconds,
    timestampSkewSeconds: config.timestampSkewSeconds,
    rateLimitWindowSeconds: config.rateLimitWindowSeconds,
    rateLimits: effectiveLimits({
      overrides: config.rateLimits,
      settings: { bearerTokenCallsPerWindow: config.bearerTokenCallsPerWindow },
      multiplier: config.rateLimitMultiplier,
    }),
    signInMaxFailures: config.signInMaxFailures,
    signInWindowSeconds: config.signInWindowSeconds,
    sessionIdleTimeoutSeconds: config.sessionIdleTimeoutSeconds,
    sessionLifetimeSeconds: config.sessionLifetimeSeconds,
    revocationRetentionHours: config.revocationRetentionHours,
    webhookTimeoutSeconds: config.webhookTimeoutSeconds,
  }
}

/** Stores → domain services: the limiters are made once here and shared by every request. */
export function createDomainDeps(
  opened: Storage,
  settings: DomainSettings,
  clock: Clock = systemClock,
  observe?: DomainObserver,
  instrument?: Observed['instrument'],
): DomainDeps {
  // The store layers (src/composition/store-layers.ts), once: the runtime's limiters are measured too.
  const { stores, runtime } = layeredStorage(opened, { instrument, observe })
  const signatureFailures = createFailureLog(stores.signatureFailures, { onLost: (reason) => observe?.signatureFailureLost(reason) })
  return {
    // The console's failure log hears of the verifier's refusals as an observer does.
    observe: withFailureLog(observe, signatureFailures, clock),
    stores,
    runtime,
    clock,
    newId: createIdGenerator(clock),
    settings,
    limiters: {
      endpoints: new Map(
        [...settings.rateLimits].map(([resource, limit]) => [
          resource,
          runtime.limiters.create(`limit${resource}`, limit, settings.rateLimitWindowSeconds),
        ]),
      ),
      service: Object.fromEntries(
        Object.entries(SERVICE_LIMITS).map(([limit, { name, limit: count }]) => [limit, runtime.limiters.create(name, count, settings.rateLimitWindowSeconds)]),
      ) as DomainLimiters['service'],
    },
    signatureFailures,
    handOuts: createHandOutTally({ stores, clock }),
    webhookClient: createWebhookClient(),
  }
}

/**
 * The composition root shared by the server and the CLI: the same config gives the same stores
 * and the same domain services, so a change made with the CLI is what the server reads next.
 */
export async function composeDomain(
  config: Config,
  clock: Clock = systemClock,
  options: { verifiesRequests?: boolean; observed?: Observed | undefined } = {},
): Promise<DomainDeps> {
  const { observed } = options
  const keyring = masterKeys(config)
  const storage = await openStorage({
    databaseUrl: config.database,
    redisUrl: config.redis,
    redisKeyPrefix: config.redisKeyPrefix,
    keyring,
    nonceBudget: nonceBudget(config),
    settleNonceEpoch: options.verifiesRequests !== false,
    forTests: config.test ? { nowMs: () => clock.nowMs() } : undefined,
  }).catch(
    (error: Error) => {
      // Start-up cannot go on without its storage: say which setting to look at, in one line.
      const where = config.redis ? `database ${redact(config.database)} or redis ${redact(config.redis)}` : `database ${redact(config.database)}`
      throw new ConfigError(`cannot open the ${where}: ${error.message}`)
    },
  )
  return createDomainDeps(storage, domainSettings(config), clock, observed?.observer, observed && ((opened) => observed.instrument(opened)))
}

/** The nonce store's budget, from its two settings. */
export function nonceBudget(config: Pick<Config, 'nonceCapacity' | 'nonceNearFullPercent'>): { capacity: number; nearFull: number } {
  return { capacity: config.nonceCapacity, nearFull: config.nonceNearFullPercent / 100 }
}

/** The pages' sign-in throttle, made here with every other limiter, on the same stores' limiters. */
export function signInThrottleOf(domain: DomainDeps): SignInThrottle {
  return createSignInThrottle(domain.runtime.limiters, domain.settings, domain.stores.signInUnlocks)
}

/**
 * The master keys: the development server makes its key file on first start (and says so); in
 * every other case a missing key stops start-up with one line.
 */
export function masterKeys(config: Config): KeyringSource {
  // The test mode leaves nothing behind: without a key given, one for this process only.
  if (config.test && !config.masterKey && !existsSync(config.masterKeyFile)) return { kind: 'inline', keyring: newKeyring() }
  try {
    const { source, created } = resolveKeyringSource({ inline: config.masterKey, file: config.masterKeyFile, createIfMissing: config.dev })
    if (created) {
      process.stderr.write(
        `Made a new master key file at ${config.masterKeyFile}. It seals every secret in the database: keep it, and keep it apart from database backups.\n`,
      )
    }
    return source
  } catch (error) {
    if (error instanceof KeyringError) throw new ConfigError(`invalid setting masterKey/masterKeyFile: ${error.message}`)
    throw error
  }
}

/** A database URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')
}
