import type { AccessLevel, AppRecord, AuditEventName, AuditEventRecord, UserRecord } from './records.ts'

/** An admin API credential. The token itself is shown once and kept only as a keyed hash. */
export interface AdminTokenRecord {
  id: string
  name: string
  createdAtMs: number
  revokedAtMs: number | null
}

/** Where a page of a list starts: after the last row of the page before (lists are in a total order). */
export interface PageQuery {
  /** At most this many rows. */
  limit: number
}

export interface AuditPageQuery extends PageQuery {
  appId?: string
  userId?: string
  event?: AuditEventName
  sinceMs?: number
  /** Only events before this time. */
  untilMs?: number
  /** The last event of the page before (newest first: this page is older than it). */
  before?: { atMs: number; id: number }
}

/** An app a person has authorized: they hold at least one live access token of it. */
export interface AuthorizationRecord {
  appId: string
  appName: string
  accessLevel: AccessLevel
  authorizedAtMs: number
}

/** The admin API's credentials. */
export interface AdminTokenStore {
  create(record: AdminTokenRecord, token: string): Promise<void>
  /** The token by its value, revoked ones included (the caller decides). */
  findByToken(token: string): Promise<AdminTokenRecord | undefined>
  list(): Promise<AdminTokenRecord[]>
  /** False when there is no such live token. */
  revoke(id: string, nowMs: number): Promise<boolean>
}

/** When an operator last cleared each key of the sign-in throttle (src/domain/sign-in.ts). */
export interface SignInUnlockStore {
  /** Notes that an operator cleared the throttle's `key` at `atMs` (the latest clearing counts). */
  record(key: string, atMs: number): Promise<void>
  /** When each of these throttle keys was last cleared; keys never cleared are absent. */
  latest(keys: readonly string[]): Promise<Map<string, number>>
}

/**
 * Read-only lists over several tables: the admin API's pages and a person's authorizations. Pages
 * are keyed by position (the last row's sort key), never by offset, so that rows inserted meanwhile
 * neither repeat nor hide a row of a later page.
 */
export interface ListingStore {
  /** Users in id order, after `afterId`; only the one with this screen name (any case) when given. */
  usersPage(query: PageQuery & { afterId?: string; screenName?: string }): Promise<UserRecord[]>
  /** Apps in id order, after `afterId`; only this owner's when given. */
  appsPage(query: PageQuery & { afterId?: string; ownerId?: string }): Promise<AppRecord[]>
  /** Audit events newest first (at_ms, then id, both descending), with their row ids. */
  auditPage(query: AuditPageQuery): Promise<Array<AuditEventRecord & { id: number }>>
  /** The apps this person holds a live access token of, in app id order; the earliest live token's time and level per app. */
  authorizations(userId: string): Promise<AuthorizationRecord[]>
}
