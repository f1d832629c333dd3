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

/** A rotated-out key pair that keeps working until expiresAtMs. */
export interface PreviousKeyRecord {
  appId: string
  consumerKey: string
  consumerSecret: string
  expiresAtMs: number
}

export interface KeyRotation {
  keys: { consumerKey: string; consumerSecret: string }
  /** The pair being replaced keeps working until this time; without it, it stops at once. */
  previousValidUntilMs?: number
  /** Also revoke every request, access and bearer token issued to the app. */
  revokeTokens: boolean
  nowMs: number
}

/** An app a person has authorized: they hold at least one live access token of it. */
export interface AuthorizationRecord {
  appId: string
  appName: string
  accessLevel: AccessLevel
  authorizedAtMs: number
}

/**
 * The queries of the admin API that the other stores have no use for: admin tokens, and the
 * paginated lists. Pages are keyed by position (the last row's sort key), never by offset, so that
 * rows inserted meanwhile neither repeat nor hide a row of a later page.
 */
export interface AdminStore {
  createToken(record: AdminTokenRecord, token: string): Promise<void>
  /** The token by its value, revoked ones included (the caller decides). */
  findToken(token: string): Promise<AdminTokenRecord | undefined>
  listTokens(): Promise<AdminTokenRecord[]>
  /** False when there is no such live token. */
  revokeToken(id: string, nowMs: number): Promise<boolean>
  /**
   * Sets the given fields, and with endSessions raises the session generation in the same statement
   * (every browser session ends); the new record, or undefined when there is no such user.
   */
  updateUser(id: string, patch: { name?: string; passwordHash?: string; disabledAtMs?: number | null; endSessions?: boolean }): Promise<UserRecord | undefined>
  /** Revokes every live access token of this person for this app; how many were live. */
  revokeAuthorization(userId: string, appId: string, nowMs: number): Promise<number>
  /**
   * In one transaction: the app's new key pair, its current pair kept as the previous one until
   * previousValidUntilMs (any older previous pair dropped), and its tokens revoked when asked.
   * Undefined when there is no such app.
   */
  rotateKeys(appId: string, rotation: KeyRotation): Promise<AppRecord | undefined>
  /** The previous key pair with this consumer key, expired or not (the caller decides). */
  findPreviousKey(consumerKey: string): Promise<PreviousKeyRecord | undefined>
  /** Users in id order, after `afterId`; only the one with this screen name (any case) when given. */
  usersPage(query: PageQuery & { afterId?: string; screenName?: string }): Promise<UserRecord[]>
  /** Apps in id order, after `afterId`; only this owner's when given. */
  appsPage(query: PageQuery & { afterId?: string; ownerId?: string }): Promise<AppRecord[]>
  /** Audit events newest first (at_ms, then id, both descending), with their row ids. */
  auditPage(query: AuditPageQuery): Promise<Array<AuditEventRecord & { id: number }>>
  /** The apps this person holds a live access token of, in app id order; the earliest live token's time and level per app. */
  authorizations(userId: string): Promise<AuthorizationRecord[]>
  /** Notes that an operator cleared the sign-in throttle's `key` at `atMs` (the latest clearing counts). */
  recordSignInUnlock(key: string, atMs: number): Promise<void>
  /** When each of these throttle keys was last cleared; keys never cleared are absent. */
  signInUnlocks(keys: readonly string[]): Promise<Map<string, number>>
}
