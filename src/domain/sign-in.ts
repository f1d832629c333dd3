import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import type { UserRecord } from '../storage/records.ts'
import type { DomainDeps } from './deps.ts'
import { dummyPasswordHash, verifyPassword } from './passwords.ts'

/** What failed sign-ins are counted against: the account typed in and the address it came from. */
export interface SignInKeys {
  account: string
  address: string
}

/**
 * Counts failed sign-ins per account and per address within a window (settings signInMaxFailures,
 * signInWindowSeconds). The memory adapter lives in src/pages/sign-in-throttle.ts; a shared one
 * (Redis) can replace it without touching this file.
 */
export interface SignInThrottle {
  /** True while either key has reached the limit in the current window. */
  isBlocked(keys: SignInKeys): Promise<boolean>
  recordFailure(keys: SignInKeys): Promise<void>
  /** Forgets the account's failures (after a correct password); the address keeps its count. */
  reset(account: string): Promise<void>
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
