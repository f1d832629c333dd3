import { E } from '../errors/catalogue.ts'
import { ServiceError, assertThat } from '../errors/service-error.ts'
import type { AuditDetail, UserRecord } from '../storage/records.ts'
import type { SignInUnlockStore } from '../storage/admin-types.ts'
import type { LimitState, LimiterFactory } from '../storage/types.ts'
import { changeWithAudit, recordAudit } from './audit.ts'
import { budgetAddress, isIpAddress } from './client-address.ts'
import type { DomainDeps, DomainSettings } from './deps.ts'
import { dummyPasswordHash, hashPassword, isCurrentHash, verifyPassword } from './passwords.ts'
import { spend } from './rate-limits.ts'
import { findByScreenName } from './registry/users.ts'

/** What failed sign-ins are counted against: the account typed in and the address it came from. */
export interface SignInKeys {
  account: string
  address: string
  /** The account is an upstream identity (`<provider>:<subject>`), counted apart from every typed username. */
  isIdentity?: boolean
}

/**
 * Counts failed sign-ins per account and per address within a window (settings signInMaxFailures,
 * signInWindowSeconds). Built on the stores' limiters (createSignInThrottle), so it is shared
 * between instances whenever they are.
 */
export interface SignInThrottle {
  /**
   * Counts an attempt for both keys before the password is checked; false when either key had no
   * attempts left, and then the attempt is not counted. Counting first keeps parallel guesses from
   * all slipping past one check; giving back refused ones leaves only failures counted once the
   * attempts in flight are done, so people signing in at once behind one address never lock it.
   */
  admit(keys: SignInKeys): Promise<boolean>
  /** A correct password: the attempt did not count, and the account's failures are forgotten. */
  succeeded(keys: SignInKeys): Promise<void>
  /**
   * After admit said no: how long until the keys are free again (0 when the attempts in flight that
   * used them up have been given back since), and whether this is the address's first refusal of the
   * window (only that one is written to the audit trail; the rest are counted in the metrics).
   */
  refusal(keys: SignInKeys): Promise<{ waitMs: number; isFirst: boolean }>
}

/** The throttle's key of an account: its screen name, in any case, as typed or with a leading `@`. */
export const accountThrottleKey = (screenName: string) => `account:${normalizeUsername(screenName).toLowerCase()}`
/** The throttle's key of an upstream identity: a prefix no typed username gets, the subject as sent (case kept). */
export const identityThrottleKey = (identity: string) => `identity:${identity}`
/** The throttle's key of an address: the form its budget is kept under (an IPv6 address's /64). */
export const addressThrottleKey = (address: string) => `address:${budgetAddress(address)}`

/**
 * The throttle on one fixed-window limiter (one window per key from its first failure): a key is
 * blocked once it has no failures left, until its window ends, or until an operator clears it
 * (`latchkey user unlock`): the clearing is a row in the database, read only when a key is found
 * blocked, so that it reaches the limiters of every process, in memory or in Redis.
 */
export function createSignInThrottle(
  limiters: LimiterFactory,
  settings: Pick<DomainSettings, 'signInMaxFailures' | 'signInWindowSeconds'>,
  unlocks: Pick<SignInUnlockStore, 'latest'>,
): SignInThrottle {
  const limiter = limiters.create('sign-in-failures', settings.signInMaxFailures, settings.signInWindowSeconds)
  const refusals = limiters.create('sign-in-refusals', 1, settings.signInWindowSeconds)
  const windowMs = settings.signInWindowSeconds * 1000
  const keysOf = (keys: SignInKeys) => [keys.isIdentity ? identityThrottleKey(keys.account) : accountThrottleKey(keys.account), addressThrottleKey(keys.address)]
  /** Counts an attempt on every key; undefined when all had room, else the states (the attempt given back). */
  async function attempt(keys: string[]): Promise<LimitState[] | undefined> {
    const states = await Promise.all(keys.map(async (key) => (await spend(limiter, key)).limit))
    if (states.every((state) => state.isAllowed)) return undefined
    await Promise.all(keys.map((key) => limiter.refund(key)))
    return states
  }
  /** Resets each blocked key cleared since its window began; whether any was. */
  async function resetUnlocked(keys: string[], states: LimitState[]): Promise<boolean> {
    const blocked = keys.flatMap((key, i) => (states[i]!.isAllowed ? [] : [{ key, windowStartMs: states[i]!.resetAtMs - windowMs }]))
    const unlockedAt = await unlocks.latest(blocked.map(({ key }) => key))
    const cleared = blocked.filter(({ key, windowStartMs }) => (unlockedAt.get(key) ?? -Infinity) >= windowStartMs)
    await Promise.all(cleared.map(({ key }) => limiter.reset(key)))
    return cleared.length > 0
  }
  return {
    async admit(keys) {
      const throttleKeys = keysOf(keys)
      const blocked = await attempt(throttleKeys)
      if (!blocked) return true
      return (await resetUnlocked(throttleKeys, blocked)) && (await attempt(throttleKeys)) === undefined
    },
    async succeeded(keys) {
      const [account, address] = keysOf(keys) as [string, string]
      await Promise.all([limiter.reset(account), limiter.refund(address)])
    },
    async refusal(keys) {
      const [accountKey, addressKey] = keysOf(keys) as [string, string]
      const [account, address, refused] = await Promise.all([limiter.peek(accountKey), limiter.peek(addressKey), spend(refusals, addressKey)])
      // The limiters count on real time (in Redis, on its clock), not on the domain's clock.
      const blockedUntilMs = Math.max(0, ...[account, address].filter((state) => !state.isAllowed).map((state) => state.resetAtMs))
      return { waitMs: Math.max(0, blockedUntilMs - Date.now()), isFirst: refused.limit.isAllowed }
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

export type SignInDeps = Pick<DomainDeps, 'stores' | 'clock' | 'observe'> & { throttle: SignInThrottle }

/** Where an attempt came from, for the audit trail; `method` names a sign-in other than a password's. */
export interface AttemptPlace {
  address: string
  appId?: string | undefined
  step?: 'confirm'
  method?: string
}

/**
 * One counted sign-in attempt, whatever proves the person (a password, an upstream provider, the
 * platform's login page): the throttle is asked first (a blocked account is refused even when the
 * proof is right), then `check` says who was proved (or undefined, with the person it was for if
 * known). A disabled person is refused like a wrong proof. Failures are audited without what was
 * typed: people type their password into the username field.
 */
export async function countedSignIn(
  deps: SignInDeps,
  keys: SignInKeys,
  where: AttemptPlace,
  check: () => Promise<{ user: UserRecord | undefined; isCorrect: boolean; reason?: string }>,
): Promise<UserRecord> {
  const step: AuditDetail = { ...(where.step ? { step: where.step } : {}), ...(where.method ? { method: where.method } : {}) }
  if (!(await deps.throttle.admit(keys))) {
    const refusal = await deps.throttle.refusal(keys)
    // One row per address and window: a flood of refused attempts must not grow the trail without bound.
    if (refusal.isFirst) await recordAudit(deps, { event: 'sign_in.failed', appId: where.appId, address: where.address, detail: { reason: 'throttled', ...step } })
    deps.observe?.signIn('throttled')
    deps.observe?.rateLimited('sign_in', 'sign_in')
    throw new ServiceError(E.signInThrottled, { message: throttledMessage(refusal.waitMs) })
  }
  const { user, isCorrect, reason } = await check()
  // A disabled person is refused like a wrong password: the page says nothing more.
  if (!user || !isCorrect || user.isDisabled) {
    const failure = { userId: user?.id, appId: where.appId, address: where.address, detail: { reason: reason ?? 'credentials', ...step } }
    await recordAudit(deps, { event: 'sign_in.failed', ...failure })
    deps.observe?.signIn(where.method ? 'refused' : 'wrong_password')
    throw new ServiceError(where.method ? E.linkedSignInRefused : E.signInFailed)
  }
  await deps.throttle.succeeded(keys)
  const detail = Object.keys(step).length > 0 ? { detail: step } : {}
  await recordAudit(deps, { event: 'sign_in.succeeded', userId: user.id, appId: where.appId, address: where.address, ...detail })
  deps.observe?.signIn('ok')
  return user
}

/** The refusal, saying how long to wait, in whole minutes rounded up. */
export function throttledMessage(waitMs: number): string {
  if (waitMs <= 0) return 'Too many attempts to sign in at once. Please try again.'
  const minutes = Math.ceil(waitMs / 60_000)
  return `Too many attempts to sign in. Please try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`
}

/**
 * Checks a username and password. Unknown accounts are counted and throttled like real ones and
 * verified against a dummy hash, so neither the answer, the 429 nor the timing says whether an
 * account exists. The throttle is asked before the password is checked, so a blocked account is
 * refused even with the right password.
 */
export async function signIn(deps: SignInDeps, input: SignInInput): Promise<UserRecord> {
  const screenName = normalizeUsername(input.username)
  const keys: SignInKeys = { account: screenName.toLowerCase(), address: input.address }
  const user = await countedSignIn(deps, keys, { address: input.address, appId: input.appId }, async () => {
    const user = await findByScreenName(deps, screenName)
    const isCorrect = await verifyPassword(input.password, user?.passwordHash ?? (await dummyPasswordHash()))
    return { user, isCorrect }
  })
  return upgradePasswordHash(deps, user, input.password)
}

/**
 * After a right password: a hash that is not Latchkey's current scrypt (an imported bcrypt, argon2id
 * or PBKDF2 one, or older parameters) is replaced by it, while the row still holds the hash just
 * checked. No session ends: the password is the same.
 */
async function upgradePasswordHash(deps: Pick<DomainDeps, 'stores'>, user: UserRecord, password: string): Promise<UserRecord> {
  if (isCurrentHash(user.passwordHash)) return user
  const passwordHash = await hashPassword(password)
  return (await deps.stores.users.update(user.id, { passwordHash, whenPasswordHash: user.passwordHash })) ?? user
}

/**
 * The signed-in person's password asked again before a sensitive action ("sudo"): counted and
 * throttled on their account and address exactly as a sign-in, so the prompt is no way around it.
 */
export async function confirmPassword(deps: SignInDeps, input: { user: UserRecord; password: string; address: string }): Promise<void> {
  const keys: SignInKeys = { account: input.user.screenName.toLowerCase(), address: input.address }
  const user = await countedSignIn(deps, keys, { address: input.address, step: 'confirm' }, async () => {
    // The row as it is now: a password changed elsewhere in the meantime is the one that counts.
    const user = await deps.stores.users.findById(input.user.id)
    return { user, isCorrect: await verifyPassword(input.password, user?.passwordHash ?? (await dummyPasswordHash())) }
  })
  await upgradePasswordHash(deps, user, input.password)
}

/**
 * Clears the sign-in throttle of an account or of an address (`latchkey user unlock`): its next
 * attempt counts afresh, on every instance. Written to the database and the audit trail; the
 * throttle reads it when it finds the key blocked.
 */
export async function unlockSignIn(deps: Pick<DomainDeps, 'stores' | 'clock'>, target: { user: UserRecord } | { address: string }): Promise<void> {
  if ('address' in target) assertThat(isIpAddress(target.address), E.invalidParameter, { message: `not an IP address: ${target.address}`, field: 'address' })
  const key = 'user' in target ? accountThrottleKey(target.user.screenName) : addressThrottleKey(target.address)
  const detail: AuditDetail = 'user' in target ? { account: target.user.screenName } : { address: target.address }
  await changeWithAudit(deps, async (tx, audit) => {
    await tx.signInUnlocks.record(key, deps.clock.nowMs())
    await audit({ event: 'sign_in.unlocked', ...('user' in target ? { userId: target.user.id } : {}), detail })
  })
}
