import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import type { UserRecord } from '../storage/records.ts'
import type { LimiterFactory } from '../storage/types.ts'
import type { DomainDeps, DomainSettings } from './deps.ts'
import { dummyPasswordHash, verifyPassword } from './passwords.ts'

/** What failed sign-ins are counted against: the account typed in and the address it came from. */
export interface SignInKeys {
  account: string
  address: string
}

/**
 * Counts failed sign-ins per account and per address within a window (settings signInMaxFailures,
 * signInWindowSeconds). Built on the stores' limiters (createSignInThrottle), so it is shared
 * between instances whenever they are.
 */
export interface SignInThrottle {
  /** True while either key has reached the limit in the current window. */
  isBlocked(keys: SignInKeys): Promise<boolean>
  recordFailure(keys: SignInKeys): Promise<void>
  /** Forgets the account's failures (after a correct password); the address keeps its count. */
  reset(account: string): Promise<void>
}

/**
 * The throttle on one fixed-window limiter (one window per key from its first failure): a key is
 * blocked once it has no failures left, until its window ends.
 */
export function createSignInThrottle(
  limiters: LimiterFactory,
  settings: Pick<DomainSettings, 'signInMaxFailures' | 'signInWindowSeconds'>,
): SignInThrottle {
  const limiter = limiters.create('sign-in-failures', settings.signInMaxFailures, settings.signInWindowSeconds)
  const accountKey = (account: string) => `account:${account}`
  const limiterKeys = (keys: SignInKeys) => [accountKey(keys.account), `address:${keys.address}`]
  return {
    async isBlocked(keys) {
      const states = await Promise.all(limiterKeys(keys).map((key) => limiter.peek(key)))
      return states.some((state) => state.remaining === 0)
    },
    async recordFailure(keys) {
      await Promise.all(limiterKeys(keys).map((key) => limiter.hit(key)))
    },
    reset: (account) => limiter.reset(accountKey(account)),
  }
}

export interface SignInInput {
  username: string
  password: string
  /** The client's address as the HTTP layer sees it. */
  address: string
}

/** The screen name as typed, without surrounding spaces or a leading `@`. */
export function normalizeUsername(username: string): string {
  return username.trim().replace(/^@/, '')
}

/**
 * Checks a username and password. Unknown accounts are counted and throttled like real ones and
 * verified against a dummy hash, so neither the answer, the 429 nor the timing says whether an
 * account exists. The throttle is asked before the password is checked, so a blocked account is
 * refused even with the right password.
 */
export async function signIn(
  deps: Pick<DomainDeps, 'stores'> & { throttle: SignInThrottle },
  input: SignInInput,
): Promise<UserRecord> {
  const screenName = normalizeUsername(input.username)
  const keys: SignInKeys = { account: screenName.toLowerCase(), address: input.address }
  if (await deps.throttle.isBlocked(keys)) throw new ServiceError(E.signInThrottled)

  const user = screenName === '' ? undefined : await deps.stores.users.findByScreenName(screenName)
  const isCorrect = await verifyPassword(input.password, user?.passwordHash ?? (await dummyPasswordHash()))
  if (!user || !isCorrect) {
    await deps.throttle.recordFailure(keys)
    throw new ServiceError(E.signInFailed)
  }
  await deps.throttle.reset(keys.account)
  return user
}
