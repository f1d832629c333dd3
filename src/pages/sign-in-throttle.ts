import { RateLimiterMemory } from 'rate-limiter-flexible'
import type { DomainSettings } from '../domain/deps.ts'
import type { SignInKeys, SignInThrottle } from '../domain/sign-in.ts'

/**
 * The sign-in throttle of a single instance, on rate-limiter-flexible's memory limiter: a fixed
 * window per key that starts at its first failure. One instance only; a Redis limiter with the
 * same four calls will replace it when Latchkey runs on several.
 */
export function createMemorySignInThrottle(
  settings: Pick<DomainSettings, 'signInMaxFailures' | 'signInWindowSeconds'>,
): SignInThrottle {
  const maxFailures = settings.signInMaxFailures
  const limiter = new RateLimiterMemory({
    keyPrefix: 'sign-in',
    points: maxFailures,
    duration: settings.signInWindowSeconds,
  })
  const accountKey = (account: string) => `account:${account}`
  const limiterKeys = (keys: SignInKeys) => [accountKey(keys.account), `address:${keys.address}`]

  return {
    async isBlocked(keys) {
      for (const key of limiterKeys(keys)) {
        const counted = await limiter.get(key)
        if (counted && counted.consumedPoints >= maxFailures && counted.msBeforeNext > 0) return true
      }
      return false
    },
    async recordFailure(keys) {
      await Promise.all(limiterKeys(keys).map((key) => limiter.penalty(key, 1)))
    },
    async reset(account) {
      await limiter.delete(accountKey(account))
    },
  }
}
