import type { Selectable } from 'kysely'
import type {
  AccessLevel,
  AccessTokenRecord,
  AppRecord,
  AppType,
  AuditDetail,
  AuditEventName,
  AuditEventRecord,
  BearerTokenRecord,
  RequestTokenRecord,
  RequestTokenStatus,
  SignatureMethodName,
  SuspendedBy,
  UserRecord,
} from '../records.ts'
import { SealError } from '../errors.ts'
import type { Sealer } from '../sealing/sealer.ts'
import type { AccessTokensTable, AppsTable, AuditEventsTable, BearerTokensTable, RequestTokensTable, UsersTable } from './schema.ts'

/**
 * Row ↔ record mapping: the only place snake_case columns meet camelCase records, and the only
 * place secrets are sealed on the way in and opened on the way out.
 */

const num = (v: number | string | bigint): number => Number(v)
const numOrNull = (v: number | string | bigint | null): number | null => (v === null ? null : Number(v))

export function toUser(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    screenName: row.screen_name,
    name: row.name,
    passwordHash: row.password_hash,
    createdAtMs: num(row.created_at_ms),
    // Only when set: a record reads back as it was written.
    ...(row.disabled_at_ms === null ? {} : { isDisabled: true }),
    ...(row.session_generation ? { sessionGeneration: num(row.session_generation) } : {}),
    ...(row.email === null ? {} : { email: row.email }),
  }
}

export function fromUser(user: UserRecord): UsersTable {
  return {
    id: user.id,
    screen_name: user.screenName,
    screen_name_lower: user.screenName.toLowerCase(),
    name: user.name,
    password_hash: user.passwordHash,
    created_at_ms: user.createdAtMs,
    disabled_at_ms: user.isDisabled ? user.createdAtMs : null,
    session_generation: user.sessionGeneration ?? 0,
    email: user.email ?? null,
    email_lower: user.email?.toLowerCase() ?? null,
  }
}

/**
 * `name_key` is the unique index's (migration 008): written with the name, never read. The keys are
 * opened when first read, so an app whose stored key cannot be opened (SealError) is still listed,
 * and only what uses its keys is refused.
 */
export function toApp(row: Omit<Selectable<AppsTable>, 'name_key'>, sealer: Sealer): AppRecord {
  const record = {
    id: row.id,
    name: row.name,
    description: row.description,
    website: row.website,
    ownerId: row.owner_id,
    consumerKey: '',
    consumerSecret: '',
    callbackUrls: JSON.parse(row.callback_urls) as string[],
    accessLevel: row.access_level as AccessLevel,
    type: row.app_type as AppType,
    isSignInEnabled: num(row.sign_in_enabled) === 1,
    signatureMethods: row.signature_methods.split(',') as SignatureMethodName[],
    isSuspended: num(row.is_suspended) === 1,
    ...(num(row.is_suspended) === 1 && row.suspended_by ? { suspendedBy: row.suspended_by as SuspendedBy } : {}),
    isResourceServer: num(row.is_resource_server) === 1,
    createdAtMs: num(row.created_at_ms),
    updatedAtMs: num(row.updated_at_ms),
  }
  return Object.defineProperties(record, {
    consumerKey: openedOnRead(row.consumer_key, sealer, `app ${row.id}'s consumer key`),
    consumerSecret: openedOnRead(row.consumer_secret, sealer, `app ${row.id}'s consumer secret`),
  })
}

/** A record's field holding a sealed value, opened on its first read (and then kept); a failure names `what` for the log. */
function openedOnRead(sealed: string, sealer: Sealer, what: string): PropertyDescriptor {
  let plain: string | undefined
  const open = () => {
    try {
      return sealer.open(sealed)
    } catch (error) {
      throw error instanceof SealError ? new SealError(`${what}: ${error.message}`, { cause: error }) : error
    }
  }
  return { enumerable: true, get: () => (plain ??= open()) }
}

/** How an app's name is compared for uniqueness per owner: without regard to case (the domain's rule too). */
export const appNameKey = (name: string): string => name.toLowerCase()

export function fromApp(app: AppRecord, sealer: Sealer): AppsTable {
  return {
    id: app.id,
    name: app.name,
    name_key: appNameKey(app.name),
    description: app.description,
    website: app.website,
    owner_id: app.ownerId,
    ...sealedKeys(app, sealer),
    callback_urls: JSON.stringify(app.callbackUrls),
    access_level: app.accessLevel,
    app_type: app.type,
    sign_in_enabled: app.isSignInEnabled ? 1 : 0,
    signature_methods: app.signatureMethods.join(','),
    is_suspended: app.isSuspended ? 1 : 0,
    suspended_by: app.isSuspended ? (app.suspendedBy ?? null) : null,
    is_resource_server: app.isResourceServer ? 1 : 0,
    created_at_ms: app.createdAtMs,
    updated_at_ms: app.updatedAtMs,
  }
}

export function sealedKeys(keys: { consumerKey: string; consumerSecret: string }, sealer: Sealer) {
  return {
    consumer_key: sealer.seal(keys.consumerKey),
    consumer_key_hash: sealer.index(keys.consumerKey),
    consumer_secret: sealer.seal(keys.consumerSecret),
  }
}

/** The record of a request token found by `token` (only its hash is stored). */
export function toRequestToken(row: Selectable<RequestTokensTable>, token: string, sealer: Sealer): RequestTokenRecord {
  return {
    token,
    secret: sealer.open(row.secret),
    appId: row.app_id,
    callback: row.callback,
    accessLevel: row.access_level as AccessLevel,
    status: row.status as RequestTokenStatus,
    userId: row.user_id,
    verifierFailures: num(row.verifier_failures),
    createdAtMs: num(row.created_at_ms),
    expiresAtMs: num(row.expires_at_ms),
  }
}

export function fromRequestToken(r: RequestTokenRecord, sealer: Sealer): RequestTokensTable {
  return {
    token_hash: sealer.index(r.token),
    secret: sealer.seal(r.secret),
    app_id: r.appId,
    callback: r.callback,
    access_level: r.accessLevel,
    status: r.status,
    user_id: r.userId,
    verifier_hash: null,
    verifier_failures: r.verifierFailures,
    created_at_ms: r.createdAtMs,
    expires_at_ms: r.expiresAtMs,
  }
}

export function toAccessToken(row: Selectable<AccessTokensTable>, sealer: Sealer): AccessTokenRecord {
  return {
    token: sealer.open(row.token),
    secret: sealer.open(row.secret),
    appId: row.app_id,
    userId: row.user_id,
    accessLevel: row.access_level as AccessLevel,
    createdAtMs: num(row.created_at_ms),
    revokedAtMs: numOrNull(row.revoked_at_ms),
  }
}

export function fromAccessToken(r: AccessTokenRecord, sealer: Sealer): AccessTokensTable {
  return {
    token: sealer.seal(r.token),
    token_hash: sealer.index(r.token),
    secret: sealer.seal(r.secret),
    app_id: r.appId,
    user_id: r.userId,
    access_level: r.accessLevel,
    created_at_ms: r.createdAtMs,
    revoked_at_ms: r.revokedAtMs,
  }
}

export function toBearerToken(row: Selectable<BearerTokensTable>, sealer: Sealer): BearerTokenRecord {
  return {
    token: sealer.open(row.token),
    appId: row.app_id,
    createdAtMs: num(row.created_at_ms),
    revokedAtMs: numOrNull(row.revoked_at_ms),
  }
}

export function fromBearerToken(r: BearerTokenRecord, sealer: Sealer): BearerTokensTable {
  return {
    token: sealer.seal(r.token),
    token_hash: sealer.index(r.token),
    app_id: r.appId,
    created_at_ms: r.createdAtMs,
    revoked_at_ms: r.revokedAtMs,
  }
}

export function toAuditEvent(row: Selectable<AuditEventsTable>): AuditEventRecord {
  return {
    atMs: num(row.at_ms),
    event: row.event as AuditEventName,
    appId: row.app_id,
    userId: row.user_id,
    address: row.address,
    detail: row.detail === null ? null : (JSON.parse(row.detail) as AuditDetail),
  }
}

export function fromAuditEvent(r: AuditEventRecord): Omit<AuditEventsTable, 'id'> {
  return {
    at_ms: r.atMs,
    event: r.event,
    app_id: r.appId,
    user_id: r.userId,
    address: r.address,
    detail: r.detail === null ? null : JSON.stringify(r.detail),
  }
}
