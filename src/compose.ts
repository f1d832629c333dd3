import type { Config } from './config/settings.ts'
import { systemClock, type Clock } from './domain/clock.ts'
import type { DomainDeps } from './domain/deps.ts'
import { createIdGenerator } from './domain/ids.ts'
import { openStores } from './storage/open-stores.ts'

/**
 * The composition root shared by the server and the CLI: the same config gives the same stores
 * and the same domain services, so a change made with the CLI is what the server reads next.
 */
export async function composeDomain(config: Config, clock: Clock = systemClock): Promise<DomainDeps> {
  const stores = await openStores({ databaseUrl: config.database })
  return {
    stores,
    clock,
    newId: createIdGenerator(clock),
    settings: {
      requestTokenTtlSeconds: config.requestTokenTtlSeconds,
      timestampSkewSeconds: config.timestampSkewSeconds,
      bearerTokenCallsPerWindow: config.bearerTokenCallsPerWindow,
      rateLimitWindowSeconds: config.rateLimitWindowSeconds,
      signInMaxFailures: config.signInMaxFailures,
      signInWindowSeconds: config.signInWindowSeconds,
    },
  }
}
