import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import type { UserRecord } from '../storage/records.ts'
import type { LimiterFactory } from '../storage/types.ts'
import { recordAudit } from './audit.ts'
import { budgetAddress } from './client-address.ts'
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
  /**
   * Counts an attempt for both keys before the password is checked; false when either key had no
   * attempts left. Counting first keeps parallel guesses from all slipping past one check.
   */
  admit(keys: SignInKeys): Promise<boolean>
  /** A correct password: the attempt did not count, and the account's failures are forgotten. */
  succeeded(keys: SignInKeys): Promise<void>
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
  const accountKey = (keys: SignInKeys) => `account:${keys.account}`
  const addressKey = (keys: SignInKeys) => `address:${budgetAddress(keys.address)}`
  return {
    async admit(keys) {
      const states = await Promise.all([limiter.hit(accountKey(keys)), limiter.hit(addressKey(keys))])
      return states.every((state) => state.isAllowed)
    },
    async succeeded(keys) {
      await Promise.all([limiter.reset(accountKey(keys)), limiter.refund(addressKey(keys))])
    },
  }
}

export interface SignInInput {
  username: string
  password: string
  /** The client's address as the HTTP layer sees it. */
  address: string
  /** The app whose consent page the person signs in on, for the audit trail. */
  appId?: string
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
  deps: Pick<DomainDeps, 'stores' | 'clock' | 'observe'> & { throttle: SignInThrottle },
  input: SignInInput,
): Promise<UserRecord> {
  const screenName = normalizeUsername(input.username)
  const keys: SignInKeys = { account: screenName.toLowerCase(), address: input.address }
  // Failures are audited without what was typed: people type their password into the username field.
  if (!(await deps.throttle.admit(keys))) {
    await recordAudit(deps, { event: 'sign_in.failed', appId: input.appId, address: input.address, detail: { reason: 'throttled' } })
    deps.observe?.signIn('throttled')
    deps.observe?.rateLimited('sign_in', 'sign_in')
    throw new ServiceError(E.signInThrottled)
  }

  const user = screenName === '' ? undefined : await deps.stores.users.findByScreenName(screenName)
  const isCorrect = await verifyPassword(input.password, user?.passwordHash ?? (await dummyPasswordHash()))
  // A disabled person is refused like a wrong password: the page says nothing more.
  if (!user || !isCorrect || user.isDisabled) {
    const failure = { userId: user?.id, appId: input.appId, address: input.address, detail: { reason: 'credentials' } }
    await recordAudit(deps, { event: 'sign_in.failed', ...failure })
    deps.observe?.signIn('wrong_password')
    throw new ServiceError(E.signInFailed)
  }
  await deps.throttle.succeeded(keys)
  await recordAudit(deps, { event: 'sign_in.succeeded', userId: user.id, appId: input.appId, address: input.address })
  deps.observe?.signIn('ok')
  return user
}
