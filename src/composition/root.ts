import { existsSync } from 'node:fs'
import type { Config } from '../config/settings.ts'
import { systemClock, type Clock } from '../domain/clock.ts'
import type { DomainDeps, DomainLimiters, DomainSettings } from '../domain/deps.ts'
import type { DomainObserver } from '../domain/observe.ts'
import { createFailureLog } from '../domain/console/signature-failures.ts'
import { createIdGenerator } from '../domain/ids.ts'
import { SERVICE_LIMITS, effectiveLimits } from '../domain/rate-limit-table.ts'
import { ConfigError } from '../config/load.ts'
import { KeyringError, createValidityCache, newKeyring, openStorage, resolveKeyringSource, withCachedLookups, type KeyringSource, type Storage, type Stores } from '../storage/index.ts'

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
  }
}

/**
 * The stores as the domain uses them, each decorator applied here and only here, innermost first:
 * (measured, when observed: composeDomain) → the validity cache, where the database has a generation
 * (src/storage/validity-cache.ts; outside the measure, so that the storage metrics time the database,
 * not the cache) → previous consumer keys in their grace period (a lookup's second step).
 */
function domainStores({ stores, runtime }: Storage, clock: Clock, observe: DomainObserver | undefined): Stores {
  const cache = runtime.generation && createValidityCache(runtime.generation, { onLookup: observe && ((result) => observe.validityCacheLookup(result)) })
  return cache ? withCachedLookups(stores, cache) : stores
}

/** Stores → domain services: the limiters are made once here and shared by every request. */
export function createDomainDeps(storage: Storage, settings: DomainSettings, clock: Clock = systemClock, observe?: DomainObserver): DomainDeps {
  const { stores, runtime } = storage
  return {
    ...(observe ? { observe } : {}),
    stores: domainStores(storage, clock, observe),
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
    signatureFailures: createFailureLog(stores.signatureFailures, { onLost: (reason) => observe?.signatureFailureLost(reason) }),
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
  return createDomainDeps(observed ? observed.instrument(storage) : storage, domainSettings(config), clock, observed?.observer)
}

/** The nonce store's budget, from its two settings. */
export function nonceBudget(config: Pick<Config, 'nonceCapacity' | 'nonceNearFullPercent'>): { capacity: number; nearFull: number } {
  return { capacity: config.nonceCapacity, nearFull: config.nonceNearFullPercent / 100 }
}

/** The server's observability: every storage call measured, and the domain's events counted. */
export interface Observed {
  instrument(storage: Storage): Storage
  observer: DomainObserver
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
