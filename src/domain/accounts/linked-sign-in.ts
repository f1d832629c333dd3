import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { IdentityLinkRecord } from '../../storage/account-types.ts'
import type { UserRecord } from '../../storage/records.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { NO_PASSWORD } from '../passwords.ts'
import { countedSignIn, type SignInDeps } from '../sign-in.ts'
import { findByScreenName } from '../registry/users.ts'
import { deriveScreenName } from './screen-names.ts'

/** Who an upstream provider or the platform's login page says the person is. */
export interface UpstreamIdentity {
  /** The provider's id in the settings, or DELEGATED_LOGIN_PROVIDER. */
  provider: string
  /** Its stable id of the person. */
  subject: string
  /** The claim chosen to make a screen name from (as sent; cleaned and made unique here). */
  screenNameClaim?: string | undefined
  name?: string | undefined
  email?: string | undefined
  /** Whether the provider says it checked the address (`email_verified`); only then is it trusted. */
  isEmailVerified?: boolean | undefined
}

/**
 * What a first sign-in of an unlinked identity does: create a person for it (just in time), or link
 * it only to the existing person whose e-mail address or screen name is the identity's.
 */
export type LinkPolicy = { create: true } | { matchBy: 'email' | 'screen_name' }

export interface LinkedSignInInput {
  identity: UpstreamIdentity
  policy: LinkPolicy
  address: string
  appId?: string | undefined
}

type Deps = SignInDeps & Pick<DomainDeps, 'newId'>

/** The throttle's account key of an upstream identity: never a screen name, so no typed name can spend it. */
const throttleAccount = (identity: UpstreamIdentity) => `${identity.provider}:${identity.subject}`.slice(0, 300)

/**
 * Signs in the person linked to an upstream identity, linking it first when this is its first
 * sign-in (LinkPolicy). Counted and audited as a password sign-in is (countedSignIn), and a disabled
 * person is refused whatever the provider says. An identity is only ever linked to a person it
 * created or to the one its verified claim names: nothing it sends reaches anyone else.
 */
export async function signInLinked(deps: Deps, input: LinkedSignInInput): Promise<UserRecord> {
  const { identity } = input
  const keys = { account: throttleAccount(identity), address: input.address, isIdentity: true }
  const where = { address: input.address, appId: input.appId, method: identity.provider }
  const user = await countedSignIn(deps, keys, where, async () => {
    const link = await deps.stores.identityLinks.find(identity.provider, identity.subject)
    if (link) return { user: await deps.stores.users.findById(link.userId), isCorrect: true }
    const found = await firstSignIn(deps, input)
    return 'user' in found ? { user: found.user, isCorrect: true } : { user: undefined, isCorrect: false, reason: found.reason }
  })
  await deps.stores.identityLinks.touch(identity.provider, identity.subject, deps.clock.nowMs())
  return user
}

/** An unlinked identity: the person it is linked to now, or why none. */
async function firstSignIn(deps: Deps, input: LinkedSignInInput): Promise<{ user: UserRecord } | { reason: string }> {
  const { identity, policy } = input
  if ('create' in policy) return { user: await createLinkedPerson(deps, identity) }
  const match = await matchingPerson(deps, identity, policy.matchBy)
  if ('reason' in match) return match
  const linked = await link(deps, { provider: identity.provider, subject: identity.subject, userId: match.user.id, createdAtMs: deps.clock.nowMs() })
  // Another sign-in of the same identity linked it first: the link decides, as on any later sign-in.
  return linked ? match : { user: await linkedPerson(deps, identity) }
}

async function matchingPerson(deps: Deps, identity: UpstreamIdentity, matchBy: 'email' | 'screen_name'): Promise<{ user: UserRecord } | { reason: string }> {
  if (matchBy === 'email') {
    if (!identity.email) return { reason: 'no_email' }
    if (identity.isEmailVerified !== true) return { reason: 'email_unverified' }
    const user = await deps.stores.users.findByEmail(identity.email)
    return user ? { user } : { reason: 'not_linked' }
  }
  const user = identity.screenNameClaim ? await findByScreenName(deps, identity.screenNameClaim) : undefined
  return user ? { user } : { reason: 'not_linked' }
}

/** Links an identity in a unit with its audit row; false when it was linked meanwhile. */
async function link(deps: Deps, record: IdentityLinkRecord): Promise<boolean> {
  return changeWithAudit(deps, async (tx, audit) => {
    if (!(await tx.identityLinks.create(record))) return false
    await audit({ event: 'identity.linked', userId: record.userId, detail: { provider: record.provider, subject: record.subject } })
    return true
  })
}

/**
 * A new person for an identity, with a screen name made from its claim (X's rule, unique), its name,
 * its e-mail address when verified and free, and no password; created and linked in one unit.
 */
async function createLinkedPerson(deps: Deps, identity: UpstreamIdentity): Promise<UserRecord> {
  const base = deriveScreenName(identity.screenNameClaim ?? '')
  if (!base) throw new ServiceError(E.screenNameUnderivable)
  const email = identity.email && identity.isEmailVerified === true && !(await deps.stores.users.findByEmail(identity.email)) ? identity.email : undefined
  const name = cleanName(identity.name) ?? base
  for (let attempt = 0; attempt < 20; attempt++) {
    const screenName = attempt === 0 ? base : withSuffix(base, attempt)
    const user: UserRecord = { id: deps.newId(), screenName, name, passwordHash: NO_PASSWORD, createdAtMs: deps.clock.nowMs(), ...(email ? { email } : {}) }
    try {
      const isCreated = await changeWithAudit(deps, async (tx, audit) => {
        if (!(await tx.users.create(user))) return false
        // Linked meanwhile by a sign-in of the same identity: undo the person, the link decides.
        if (!(await tx.identityLinks.create({ provider: identity.provider, subject: identity.subject, userId: user.id, createdAtMs: user.createdAtMs }))) throw new LinkedMeanwhile()
        await audit({ event: 'user.created', userId: user.id, detail: { screen_name: screenName, provider: identity.provider } })
        await audit({ event: 'identity.linked', userId: user.id, detail: { provider: identity.provider, subject: identity.subject } })
        return true
      })
      if (isCreated) return user
    } catch (error) {
      if (!(error instanceof LinkedMeanwhile)) throw error
      return linkedPerson(deps, identity)
    }
  }
  throw new ServiceError(E.screenNameUnderivable)
}

/** Thrown inside a unit of work to roll it back: another sign-in linked the identity first. */
class LinkedMeanwhile extends Error {}

/** The person an identity is linked to now (it was linked by a sign-in that raced this one). */
async function linkedPerson(deps: Deps, identity: UpstreamIdentity): Promise<UserRecord> {
  const link = await deps.stores.identityLinks.find(identity.provider, identity.subject)
  const user = link && (await deps.stores.users.findById(link.userId))
  if (!user) throw new Error('linkedPerson: the identity was linked and is gone again')
  return user
}

/** `base` with `_2`, `_3`, … cut so that the whole stays within 15 characters. */
function withSuffix(base: string, attempt: number): string {
  const suffix = `_${attempt + 1}`
  return base.slice(0, 15 - suffix.length) + suffix
}

/** A provider's name claim as a person's name: one line, 1 to 50 characters; undefined when none. */
function cleanName(name: string | undefined): string | undefined {
  const cleaned = (name ?? '').replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, ' ').trim().slice(0, 50).trim()
  return cleaned.length > 0 ? cleaned : undefined
}
