import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { everyField } from '../every-field.ts'
import { randomAlphanumeric } from '../../protocol/secrets.ts'
import {
  ACCESS_LEVELS,
  APP_TYPES,
  type AccessLevel,
  type AppRecord,
  type AppType,
  type SignatureMethodName,
  type SuspendedBy,
} from '../../storage/records.ts'
import type { AppPatch } from '../../storage/types.ts'
import { assertMultiLine, assertOneLine } from '../plain-text.ts'
import { findUserByIdOrScreenName } from './users.ts'
import { AppNameTakenError, OwnerAppLimitError } from '../../storage/errors.ts'
import { validateRegisteredCallback } from '../callback-url.ts'
import { changeWithAudit } from '../audit.ts'
import { wireName } from '../vocabulary.ts'
import { appIfKeyWorks } from '../key-grace.ts'
import type { DomainDeps } from '../deps.ts'

type RegistryDeps = Pick<DomainDeps, 'stores' | 'clock' | 'newId'>

export const SIGNATURE_METHOD_NAMES: readonly SignatureMethodName[] = ['HMAC-SHA1', 'HMAC-SHA256', 'PLAINTEXT']

export interface AppSettings {
  name?: string
  description?: string
  website?: string
  callbackUrls?: string[]
  accessLevel?: string
  type?: string
  isSignInEnabled?: boolean
  signatureMethods?: string[]
  isSuspended?: boolean
  isResourceServer?: boolean
}

/** Every field of AppSettings (the compiler rejects a missing one), for a surface that reads them by name: the admin API's bodies. */
const EVERY_APP_SETTING: Readonly<Record<keyof AppSettings, true>> = {
  name: true,
  description: true,
  website: true,
  callbackUrls: true,
  accessLevel: true,
  type: true,
  isSignInEnabled: true,
  signatureMethods: true,
  isSuspended: true,
  isResourceServer: true,
}
export const APP_SETTING_FIELDS = Object.keys(EVERY_APP_SETTING) as ReadonlyArray<keyof AppSettings>

export interface ConsumerKeys {
  consumerKey: string
  consumerSecret: string
}

export const newConsumerKeys = (): ConsumerKeys => ({ consumerKey: randomAlphanumeric(25), consumerSecret: randomAlphanumeric(50) })

/**
 * Checks every given field of an app's settings and returns them as a store patch. Each field is
 * checked even after another failed, so that a refusal names every bad field (everyField).
 */
export function validateSettings(input: AppSettings): AppPatch {
  const patch: AppPatch = {}
  const checks = everyField()
  const { name: rawName, description, website, callbackUrls, accessLevel, type, signatureMethods } = input
  if (rawName !== undefined) checks.run(() => {
    const name = rawName.trim()
    assertThat(name.length >= 1 && name.length <= 64, E.invalidParameter, { message: 'app name must be 1 to 64 characters', field: 'name' })
    assertOneLine(name, 'name', 'app name')
    patch.name = name
  })
  if (description !== undefined) checks.run(() => {
    assertThat(description.length <= 500, E.invalidParameter, { message: 'description must be at most 500 characters', field: 'description' })
    assertMultiLine(description, 'description', 'description')
    patch.description = description
  })
  if (website !== undefined) checks.run(() => {
    assertOneLine(website, 'website', 'website')
    assertThat(website === '' || /^https?:\/\/[^\s]+$/i.test(website), E.invalidParameter, {
      message: 'website must be an http:// or https:// URL',
      field: 'website',
    })
    patch.website = website
  })
  if (callbackUrls !== undefined) checks.run(() => {
    assertThat(callbackUrls.length <= 10, E.invalidParameter, { message: 'at most 10 callback URLs', field: 'callbackUrls' })
    for (const url of callbackUrls) assertOneLine(url, 'callbackUrls', 'a callback URL')
    patch.callbackUrls = callbackUrls.map((url) => asField('callbackUrls', () => validateRegisteredCallback(url)))
  })
  if (accessLevel !== undefined) checks.run(() => {
    patch.accessLevel = oneOf(accessLevel, ACCESS_LEVELS, 'access level', 'accessLevel') as AccessLevel
  })
  if (type !== undefined) checks.run(() => {
    patch.type = oneOf(type, APP_TYPES, 'app type', 'type') as AppType
  })
  if (signatureMethods !== undefined) checks.run(() => {
    assertThat(signatureMethods.length > 0, E.invalidParameter, { message: 'at least one signature method', field: 'signatureMethods' })
    patch.signatureMethods = [
      ...new Set(signatureMethods.map((m) => oneOf(m.toUpperCase(), SIGNATURE_METHOD_NAMES, 'signature method', 'signatureMethods'))),
    ] as SignatureMethodName[]
  })
  if (input.isSignInEnabled !== undefined) patch.isSignInEnabled = input.isSignInEnabled
  if (input.isSuspended !== undefined) patch.isSuspended = input.isSuspended
  if (input.isResourceServer !== undefined) patch.isResourceServer = input.isResourceServer
  checks.done()
  return patch
}

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string, field: string): T {
  assertThat((allowed as readonly string[]).includes(value), E.invalidParameter, {
    message: `${what} must be one of ${allowed.join(', ')}`,
    field,
  })
  return value as T
}

/** Runs a check of one field, naming the field in the error it throws. */
function asField<T>(field: string, check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof ServiceError && error.field === undefined) {
      throw new ServiceError({ status: error.status, code: error.code, message: error.message }, { message: error.message, field, cause: error })
    }
    throw error
  }
}

/**
 * An owner has at most one app of a name (compared without regard to case). The database's unique
 * index decides it (migration 008), so two concurrent creates cannot both win; this only tells
 * whether a refused write was refused for the name.
 */
async function nameTaken(deps: Pick<DomainDeps, 'stores'>, ownerId: string, name: string): Promise<boolean> {
  const apps = await deps.stores.listings.appsPage({ ownerId, limit: 10_000 })
  return apps.some((a) => a.name.toLowerCase() === name.toLowerCase())
}

const nameTakenError = (name: string, cause?: unknown) =>
  new ServiceError(E.alreadyExists, { message: `the owner already has an app named ${name}`, field: 'name', ...(cause === undefined ? {} : { cause }) })

/**
 * What an app is registered with when a setting is not given, the same from the CLI, the admin API
 * and the console: read access (as on X, a new app asks for the least), a web app without "sign in
 * with", no callback URL (the PIN flow only), HMAC-SHA1.
 */
export const APP_DEFAULTS = {
  accessLevel: 'read',
  type: 'web',
  isSignInEnabled: false,
  callbackUrls: [],
  signatureMethods: ['HMAC-SHA1'],
} as const satisfies Pick<AppRecord, 'accessLevel' | 'type' | 'isSignInEnabled'> & { callbackUrls: readonly string[]; signatureMethods: readonly SignatureMethodName[] }

/** The most apps one developer may own, unless an operator registers more explicitly. */
export const MAX_APPS_PER_OWNER = 100

const appLimitError = (cause: unknown) =>
  new ServiceError(E.invalidParameter, {
    message: `a developer may own at most ${MAX_APPS_PER_OWNER} apps`,
    field: 'owner',
    cause,
  })

/**
 * Registers an app owned by an existing user; new consumer key and secret (or the given ones: a seed file's). The owner may hold at
 * most MAX_APPS_PER_OWNER apps, counted where the app is inserted; only an operator who says so
 * (`beyondAppLimit`) registers more.
 */
export async function createApp(
  deps: RegistryDeps,
  input: AppSettings & { name: string; owner: string; keys?: ConsumerKeys | undefined },
  options: { beyondAppLimit?: boolean } = {},
): Promise<AppRecord> {
  const owner = await findUserByIdOrScreenName(deps, input.owner).catch(() => undefined)
  assertThat(owner, E.invalidParameter, { message: `no user with id or screen name ${input.owner}`, field: 'owner' })
  const patch = validateSettings(input)
  const nowMs = deps.clock.nowMs()
  for (let attempt = 0; attempt < 3; attempt++) {
    const app: AppRecord = {
      id: deps.newId(),
      name: patch.name ?? input.name,
      description: patch.description ?? '',
      website: patch.website ?? '',
      ownerId: owner.id,
      ...(input.keys ?? newConsumerKeys()),
      callbackUrls: patch.callbackUrls ?? [...APP_DEFAULTS.callbackUrls],
      accessLevel: patch.accessLevel ?? APP_DEFAULTS.accessLevel,
      type: patch.type ?? APP_DEFAULTS.type,
      isSignInEnabled: patch.isSignInEnabled ?? APP_DEFAULTS.isSignInEnabled,
      signatureMethods: patch.signatureMethods ?? [...APP_DEFAULTS.signatureMethods],
      isSuspended: patch.isSuspended ?? false,
      // Only the admin API and the CLI make an app suspended from the start: an operator's suspension.
      ...(patch.isSuspended ? { suspendedBy: 'operator' as const } : {}),
      isResourceServer: patch.isResourceServer ?? false,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
    }
    // The app and its audit row in one unit; a taken name or id (create answers false) writes nothing.
    const limit = options.beyondAppLimit ? {} : { ownerMayHold: MAX_APPS_PER_OWNER }
    const created = await changeWithAudit(deps, async (tx, audit) => {
      if (!(await tx.apps.create(app, limit))) return false
      await audit({ event: 'app.created', appId: app.id, userId: owner.id, detail: { name: app.name, type: app.type } })
      return true
    }).catch((error: unknown) => {
      throw error instanceof OwnerAppLimitError ? appLimitError(error) : error
    })
    if (created) return app
    if (await nameTaken(deps, owner.id, app.name)) throw nameTakenError(app.name)
  }
  throw new Error('createApp: could not find a free app id')
}

/** An app by its id or its consumer key. */
export async function findApp(deps: Pick<DomainDeps, 'stores' | 'clock'>, ref: string): Promise<AppRecord> {
  const app = /^\d+$/.test(ref) ? await deps.stores.apps.findById(ref) : undefined
  const found = app ?? appIfKeyWorks(await deps.stores.apps.findByConsumerKey(ref), deps.clock.nowMs())
  if (!found) throw new ServiceError(E.notFound, { message: `no app with id or consumer key ${ref}` })
  return found
}

/**
 * Who changes an app: an operator (the admin API and the CLI, the default) or its owner (the
 * developer console). An operator's suspension is lifted only by an operator.
 */
export type AppEditor = SuspendedBy

/** The patch with who suspended the app, or refused when an owner would lift an operator's suspension. */
function withSuspension(app: AppRecord, patch: AppPatch, by: AppEditor): AppPatch {
  if (patch.isSuspended === undefined) return patch
  const byOperator = app.isSuspended && app.suspendedBy !== 'owner'
  if (patch.isSuspended) return { ...patch, suspendedBy: by === 'operator' || byOperator ? 'operator' : 'owner' }
  assertThat(!(byOperator && by === 'owner'), E.invalidParameter, {
    message: 'an operator suspended this app: only an operator can lift the suspension',
    field: 'isSuspended',
  })
  return patch
}

export async function updateApp(deps: RegistryDeps, ref: string, input: AppSettings, options: { by?: AppEditor } = {}): Promise<AppRecord> {
  const app = await findApp(deps, ref)
  const settings = validateSettings(input)
  const patch = withSuspension(app, settings, options.by ?? 'operator')
  const detail = { fields: Object.keys(settings).map(wireName), ...(patch.isSuspended === undefined ? {} : { suspended: patch.isSuspended }) }
  // A suspension ends the app's OAuth 2.0 grants (lifting it brings none back); its OAuth 1.0a tokens are refused while it lasts.
  const isSuspending = patch.isSuspended === true && !app.isSuspended
  const updated = await changeWithAudit(deps, async (tx, audit) => {
    const nowMs = deps.clock.nowMs()
    const changed = await tx.apps.update(app.id, patch, nowMs)
    const grants = changed && isSuspending ? await tx.oauth2Grants.revokeAll({ appId: app.id }, nowMs) : 0
    if (changed) await audit({ event: 'app.updated', appId: app.id, userId: app.ownerId, detail: { ...detail, ...(grants > 0 ? { oauth2_grants_ended: grants } : {}) } })
    return changed
  }).catch((error: unknown) => {
    // The unique index refused the name (the unit is rolled back): 409, as for a create.
    throw error instanceof AppNameTakenError ? nameTakenError(patch.name ?? '', error) : error
  })
  if (!updated) throw new ServiceError(E.notFound, { message: `no app with id or consumer key ${ref}` })
  return updated
}

/** The longest grace period of a rotated-out key pair: 7 days. */
export const MAX_KEY_GRACE_SECONDS = 7 * 24 * 3600

/** A grace period for an old secret (consumer key pair or client secret): 1 s to 7 days, when given. */
export function checkGraceSeconds(graceSeconds: number | undefined): void {
  if (graceSeconds === undefined) return
  assertThat(Number.isInteger(graceSeconds) && graceSeconds >= 1 && graceSeconds <= MAX_KEY_GRACE_SECONDS, E.invalidParameter, {
    message: `grace must be a whole number of seconds from 1 to ${MAX_KEY_GRACE_SECONDS} (7 days)`,
    field: 'graceSeconds',
  })
}

export interface KeyRotationOptions {
  /** The old key pair keeps working this long (1 s to 7 days); without it, it stops at once. */
  graceSeconds?: number
  /**
   * Also revoke every request, access and bearer token issued to the app. The one default of every
   * door (CLI, console, admin API): revoked without a grace period, kept with one.
   */
  revokeTokens?: boolean
}

/**
 * New consumer key and secret. The old pair stops working at once, or at the end of the grace
 * period; an older pair still in its grace period stops at once. Tokens issued to the app are
 * revoked without a grace period and kept with one, unless revokeTokens says otherwise.
 */
export async function rotateAppKeys(deps: RegistryDeps, ref: string, options: KeyRotationOptions = {}): Promise<AppRecord> {
  const { graceSeconds, revokeTokens = graceSeconds === undefined } = options
  checkGraceSeconds(graceSeconds)
  const app = await findApp(deps, ref)
  const nowMs = deps.clock.nowMs()
  const rotation = {
    keys: newConsumerKeys(),
    ...(graceSeconds === undefined ? {} : { previousValidUntilMs: nowMs + graceSeconds * 1000 }),
    revokeTokens,
    nowMs,
  }
  const detail = { revoke_tokens: revokeTokens, ...(graceSeconds === undefined ? {} : { grace_seconds: graceSeconds }) }
  // The new keys (and the revoked tokens) and their audit row in one unit of work.
  const rotated = await changeWithAudit(deps, async (tx, audit) => {
    const changed = await tx.apps.rotateKeys(app.id, rotation)
    if (changed) await audit({ event: 'app.keys_rotated', appId: app.id, userId: app.ownerId, detail })
    return changed
  })
  if (!rotated) throw new ServiceError(E.notFound, { message: `no app with id or consumer key ${ref}` })
  return rotated
}

export async function deleteApp(deps: RegistryDeps, ref: string): Promise<AppRecord> {
  const app = await findApp(deps, ref)
  await changeWithAudit(deps, async (tx, audit) => {
    if (await tx.apps.delete(app.id)) await audit({ event: 'app.deleted', appId: app.id, userId: app.ownerId, detail: { name: app.name } })
  })
  return app
}
