import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { everyField } from '../every-field.ts'
import type { UserRecord } from '../../storage/records.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { hashPassword } from '../passwords.ts'
import { assertOneLine } from '../plain-text.ts'
import { validEmail } from '../accounts/email-address.ts'

const SCREEN_NAME = /^[A-Za-z0-9_]{1,15}$/

/**
 * The person of a screen name (any case), or undefined. A text that cannot be a screen name finds
 * no one without asking the store: it may hold what a database refuses (U+0000 on PostgreSQL).
 */
export async function findByScreenName(deps: Pick<DomainDeps, 'stores'>, screenName: string): Promise<UserRecord | undefined> {
  return SCREEN_NAME.test(screenName) ? deps.stores.users.findByScreenName(screenName) : undefined
}

export interface NewUser {
  screenName: string
  password: string
  name?: string
  /** Unique without regard to case (409 code 1120 when another person has it). */
  email?: string
  /** A fixed id (a seed file's); a new one otherwise. */
  id?: string
}

/** The screen-name rule: 1 to 15 letters, digits or underscores. */
export function checkScreenName(screenName: string): void {
  assertThat(SCREEN_NAME.test(screenName), E.invalidParameter, {
    message: 'screen name must be 1 to 15 letters, digits or underscores',
    field: 'screenName',
  })
}

/** Registers a person. Screen names are unique without regard to case. */
export async function createUser(deps: Pick<DomainDeps, 'stores' | 'clock' | 'newId'>, input: NewUser): Promise<UserRecord> {
  const checks = everyField()
  checks.run(() => checkScreenName(input.screenName))
  const name = checks.run(() => validName(input.name ?? input.screenName))
  const password = checks.run(() => validPassword(input.password))
  const email = input.email === undefined ? undefined : checks.run(() => validEmail(input.email!))
  checks.done()
  const passwordHash = await hashPassword(password!)
  // A false from create is a taken screen name, or (rarely) an id another process just took.
  for (let attempt = 0; attempt < 3; attempt++) {
    const user: UserRecord = { id: input.id ?? deps.newId(), screenName: input.screenName, name: name!, passwordHash, createdAtMs: deps.clock.nowMs(), ...(email ? { email } : {}) }
    const created = await changeWithAudit(deps, async (tx, audit) => {
      if (!(await tx.users.create(user))) return false
      await audit({ event: 'user.created', userId: user.id, detail: { screen_name: user.screenName } })
      return true
    })
    if (created) return user
    const taken = await deps.stores.users.findByScreenName(input.screenName)
    assertThat(!taken, E.alreadyExists, { message: `screen name ${input.screenName} is already taken`, field: 'screenName' })
    assertThat(!email || !(await deps.stores.users.findByEmail(email)), E.emailTaken, { field: 'email' })
  }
  throw new Error('createUser: could not find a free user id')
}

export function validPassword(password: string): string {
  assertThat(password.length >= 8 && password.length <= 1024, E.invalidParameter, {
    message: 'password must be 8 to 1024 characters',
    field: 'password',
  })
  return password
}

export function validName(text: string): string {
  const name = text.trim()
  assertThat(name.length >= 1 && name.length <= 50, E.invalidParameter, { message: 'name must be 1 to 50 characters', field: 'name' })
  assertOneLine(name, 'name', 'name')
  return name
}

/** A person by id (digits) or screen name (any case, a leading @ allowed); 404 when neither finds one. */
export async function findUserByIdOrScreenName(deps: Pick<DomainDeps, 'stores'>, ref: string): Promise<UserRecord> {
  const byId = /^\d{1,20}$/.test(ref) ? await deps.stores.users.findById(ref) : undefined
  const user = byId ?? (await findByScreenName(deps, ref.trim().replace(/^@/, '')))
  if (!user) throw new ServiceError(E.notFound, { message: `no user with id or screen name ${ref}` })
  return user
}
