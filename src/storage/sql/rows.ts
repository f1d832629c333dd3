import type { Selectable } from 'kysely'
import type {
  AccessLevel,
  AccessTokenRecord,
  AppRecord,
  AppType,
  BearerTokenRecord,
  RequestTokenRecord,
  RequestTokenStatus,
  SignatureMethodName,
  UserRecord,
} from '../records.ts'
import type { AccessTokensTable, AppsTable, BearerTokensTable, RequestTokensTable, UsersTable } from './schema.ts'

/** Row ↔ record mapping: the only place snake_case columns meet camelCase records. */

const num = (v: number | string | bigint): number => Number(v)
const numOrNull = (v: number | string | bigint | null): number | null => (v === null ? null : Number(v))

export function toUser(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    screenName: row.screen_name,
    name: row.name,
    passwordHash: row.password_hash,
    createdAtMs: num(row.created_at_ms),
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
  }
}

export function toApp(row: Selectable<AppsTable>): AppRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    website: row.website,
    ownerId: row.owner_id,
    consumerKey: row.consumer_key,
    consumerSecret: row.consumer_secret,
    callbackUrls: JSON.parse(row.callback_urls) as string[],
    accessLevel: row.access_level as AccessLevel,
    type: row.app_type as AppType,
    isSignInEnabled: num(row.sign_in_enabled) === 1,
    signatureMethods: row.signature_methods.split(',') as SignatureMethodName[],
    isSuspended: num(row.is_suspended) === 1,
    isResourceServer: num(row.is_resource_server) === 1,
    createdAtMs: num(row.created_at_ms),
    updatedAtMs: num(row.updated_at_ms),
  }
}

export function fromApp(app: AppRecord): AppsTable {
  return {
    id: app.id,
    name: app.name,
    description: app.description,
    website: app.website,
    owner_id: app.ownerId,
    consumer_key: app.consumerKey,
    consumer_secret: app.consumerSecret,
    callback_urls: JSON.stringify(app.callbackUrls),
    access_level: app.accessLevel,
    app_type: app.type,
    sign_in_enabled: app.isSignInEnabled ? 1 : 0,
    signature_methods: app.signatureMethods.join(','),
    is_suspended: app.isSuspended ? 1 : 0,
    is_resource_server: app.isResourceServer ? 1 : 0,
    created_at_ms: app.createdAtMs,
    updated_at_ms: app.updatedAtMs,
  }
}

export function toRequestToken(row: Selectable<RequestTokensTable>): RequestTokenRecord {
  return {
    token: row.token,
    secret: row.secret,
    appId: row.app_id,
    callback: row.callback,
    accessLevel: row.access_level as AccessLevel,
    status: row.status as RequestTokenStatus,
    userId: row.user_id,
    verifier: row.verifier,
    verifierFailures: num(row.verifier_failures),
    createdAtMs: num(row.created_at_ms),
    expiresAtMs: num(row.expires_at_ms),
  }
}

export function fromRequestToken(r: RequestTokenRecord): RequestTokensTable {
  return {
    token: r.token,
    secret: r.secret,
    app_id: r.appId,
    callback: r.callback,
    access_level: r.accessLevel,
    status: r.status,
    user_id: r.userId,
    verifier: r.verifier,
    verifier_failures: r.verifierFailures,
    created_at_ms: r.createdAtMs,
    expires_at_ms: r.expiresAtMs,
  }
}

export function toAccessToken(row: Selectable<AccessTokensTable>): AccessTokenRecord {
  return {
    token: row.token,
    secret: row.secret,
    appId: row.app_id,
    userId: row.user_id,
    accessLevel: row.access_level as AccessLevel,
    createdAtMs: num(row.created_at_ms),
    revokedAtMs: numOrNull(row.revoked_at_ms),
  }
}

export function fromAccessToken(r: AccessTokenRecord): AccessTokensTable {
  return {
    token: r.token,
    secret: r.secret,
    app_id: r.appId,
    user_id: r.userId,
    access_level: r.accessLevel,
    created_at_ms: r.createdAtMs,
    revoked_at_ms: r.revokedAtMs,
  }
}

export function toBearerToken(row: Selectable<BearerTokensTable>): BearerTokenRecord {
  return {
    token: row.token,
    appId: row.app_id,
    createdAtMs: num(row.created_at_ms),
    revokedAtMs: numOrNull(row.revoked_at_ms),
  }
}

/** True for a unique-constraint violation on SQLite or PostgreSQL. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}
