import type { Config } from './config/settings.ts'
import { systemClock, type Clock } from './domain/clock.ts'
import type { DomainDeps, DomainSettings } from './domain/deps.ts'
import { createIdGenerator } from './domain/ids.ts'
import { openStores } from './storage/open-stores.ts'
import type { Stores } from './storage/types.ts'

/** The slice of the config the domain reads. */
export function domainSettings(config: Config): DomainSettings {
  return {
    requestTokenTtlSeconds: config.requestTokenTtlSeconds,
    timestampSkewSeconds: config.timestampSkewSeconds,
    bearerTokenCallsPerWindow: config.bearerTokenCallsPerWindow,
    rateLimitWindowSeconds: config.rateLimitWindowSeconds,
    signInMaxFailures: config.signInMaxFailures,
    signInWindowSeconds: config.signInWindowSeconds,
  }
}

/** Stores → domain services: the limiters are made once here and shared by every request. */
export function createDomainDeps(stores: Stores, settings: DomainSettings, clock: Clock = systemClock): DomainDeps {
  return {
    stores,
    clock,
    newId: createIdGenerator(clock),
    settings,
    limiters: {
      bearerTokenPace: stores.limiters.create('oauth2-token-pace', settings.bearerTokenCallsPerWindow, settings.rateLimitWindowSeconds),
    },
  }
}

/**
 * The composition root shared by the server and the CLI: the same config gives the same stores
 * and the same domain services, so a change made with the CLI is what the server reads next.
 */
export async function composeDomain(config: Config, clock: Clock = systemClock): Promise<DomainDeps> {
  const stores = await openStores({ databaseUrl: config.database })
  return createDomainDeps(stores, domainSettings(config), clock)
}
