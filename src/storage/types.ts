import type { ExternalSignInStore, IdentityLinkStore } from './account-types.ts'
import type { RevocationOutboxStore, WebhookStore } from './revocation-types.ts'
import type { AccessLevel, AccessTokenRecord, AppRecord, AuditEventRecord, BearerTokenRecord, BrowserSessionRecord, RequestTokenRecord, SignatureFailure, UserRecord } from './records.ts'
import type { AdminTokenStore, ListingStore, SignInUnlockStore } from './admin-types.ts'
import type { OAuth2ClientStore, OAuth2CodeStore, OAuth2GrantStore } from './oauth2-types.ts'
import type { AdmissionStore, GenerationValue, LimiterFactory, NonceStore } from './counter-types.ts'

/**
 * The store interfaces the domain depends on. Each method states its contract; every adapter
 * (SQLite and PostgreSQL through Kysely, memory for nonces) passes the one contract suite in
 * test/storage/. Adapters never throw ServiceError: they answer `undefined` or `false` and the
 * domain decides what that means. Single-use and one-of rules are kept by the database itself
 * (conditional updates, unique indexes), never by in-process locks.
 */

export interface UserStore {
  /** Inserts the user; false when the screen name is taken (compared without regard to case). */
  create(user: UserRecord): Promise<boolean>
  findById(id: string): Promise<UserRecord | undefined>
  /** Case-insensitive lookup. */
  findByScreenName(screenName: string): Promise<UserRecord | undefined>
  /** The person of an e-mail address, compared without regard to case. */
  findByEmail(email: string): Promise<UserRecord | undefined>
  list(): Promise<UserRecord[]>
  /**
   * Sets the given fields, and with endSessions raises the session generation in the same statement
   * (every browser session ends); the new record, or undefined when there is no such user.
   */
  update(id: string, patch: UserPatch): Promise<UserRecord | undefined>
}

export interface UserPatch {
  name?: string
  passwordHash?: string
  disabledAtMs?: number | null
  endSessions?: boolean
  /** A new e-mail address, or null for none; another person's address throws EmailTakenError. */
  email?: string | null
  /** Changes the row only while its password hash is still this one (an upgrade must not undo a change made meanwhile). */
  whenPasswordHash?: string
}

export type AppPatch = Partial<
  Pick<
    AppRecord,
    | 'name'
    | 'description'
    | 'website'
    | 'callbackUrls'
    | 'accessLevel'
    | 'type'
    | 'isSignInEnabled'
    | 'signatureMethods'
    | 'isSuspended'
    | 'suspendedBy'
    | 'isResourceServer'
  >
>

/**
 * An app found by a consumer key, with the key pair that key belongs to: its current pair, or a
 * rotated-out one (AppStore.rotateKeys) with the time it stops working. The caller decides whether
 * that time has passed, on every request: the answer may come from the validity cache, filled earlier.
 */
export interface AppByConsumerKey extends AppRecord {
  /** Set only when the key is a rotated-out one: its pair works until then. */
  previousKeyExpiresAtMs?: number
}

export interface KeyRotation {
  keys: { consumerKey: string; consumerSecret: string }
  /** The pair being replaced keeps working until this time; without it, it stops at once. */
  previousValidUntilMs?: number
  /** Also revoke every request, access and bearer token issued to the app. */
  revokeTokens: boolean
  nowMs: number
}

export interface AppStore {
  /**
   * Inserts the app; false when its id or consumer key already exists, or when its owner already
   * has an app of this name, compared without regard to case (a unique index: concurrent creates
   * of one name cannot both succeed). With `ownerMayHold`, rejects with OwnerAppLimitError
   * (src/storage/errors.ts) when the owner already holds that many apps: counted in the insert's
   * transaction, one create per owner at a time on every instance.
   */
  create(app: AppRecord, options?: { ownerMayHold?: number }): Promise<boolean>
  findById(id: string): Promise<AppRecord | undefined>
  /** By its current consumer key, or else by a rotated-out one, expired or not (AppByConsumerKey). */
  findByConsumerKey(consumerKey: string): Promise<AppByConsumerKey | undefined>
  list(): Promise<AppRecord[]>
  /**
   * Applies the patch and returns the new record; undefined when there is no such app. Rejects with
   * AppNameTakenError (src/storage/errors.ts) when the new name is one its owner already uses.
   */
  update(id: string, patch: AppPatch, nowMs: number): Promise<AppRecord | undefined>
  /**
   * In one transaction: the app's new key pair, its current pair kept as the previous one until
   * previousValidUntilMs (any older previous pair dropped), and its request, access and bearer
   * tokens revoked when asked. Undefined when there is no such app.
   */
  rotateKeys(id: string, rotation: KeyRotation): Promise<AppRecord | undefined>
  /** Deletes the app, every token issued to it and its OAuth 2.0 client, codes and grants; false when there was none. */
  delete(id: string): Promise<boolean>
}

export interface RequestTokenStore {
  create(record: RequestTokenRecord): Promise<void>
  findByToken(token: string): Promise<RequestTokenRecord | undefined>
  /**
   * issued → authorized for this user with this verifier, only while the token is `issued` and
   * unexpired at nowMs. False when it was not (used, denied, expired, unknown). Request tokens and
   * verifiers are shown once and kept only as keyed hashes.
   */
  authorize(token: string, userId: string, verifier: string, nowMs: number): Promise<boolean>
  /** issued → denied, only while `issued` and unexpired. */
  deny(token: string, nowMs: number): Promise<boolean>
  /**
   * One attempt to exchange the token with a verifier, decided in one atomic statement: while the
   * token is `issued` or `authorized` and unexpired, a matching verifier turns it `used` and gets the
   * record; any other verifier counts a failure, and the failure that reaches maxFailures turns it
   * `dead`. Of any number of concurrent attempts at most one redeems it, at most maxFailures are
   * counted, and a matching verifier checked after the last counted failure finds it dead.
   * `not-redeemable` (unknown, expired, used, denied or dead) changes nothing.
   */
  redeemVerifier(token: string, verifier: string, maxFailures: number, nowMs: number): Promise<VerifierAttempt>
  /** Deletes tokens expired before nowMs; returns how many. */
  deleteExpired(nowMs: number): Promise<number>
}

/** What one attempt to exchange a request token with a verifier did (RequestTokenStore.redeemVerifier). */
export type VerifierAttempt =
  | { outcome: 'redeemed'; record: RequestTokenRecord }
  | { outcome: 'wrong-verifier'; failures: number }
  | { outcome: 'not-redeemable' }

export interface AccessTokenStore {
  findByToken(token: string): Promise<AccessTokenRecord | undefined>
  /** The live (not revoked) token of this user for this app at this level, if any. */
  findLive(appId: string, userId: string, accessLevel: AccessLevel): Promise<AccessTokenRecord | undefined>
  /**
   * Returns the live token for (app, user, level) if one exists, else stores the candidate and
   * returns it. Concurrent calls for one triple all get the same token.
   */
  issueOrReuse(candidate: AccessTokenRecord): Promise<AccessTokenRecord>
  /** Marks the token revoked; false when it was unknown or already revoked. */
  revoke(token: string, nowMs: number): Promise<boolean>
  /** Revokes every live access token of this person for this app; how many were live. */
  revokeAuthorization(userId: string, appId: string, nowMs: number): Promise<number>
}

export interface BearerTokenStore {
  findByToken(token: string): Promise<BearerTokenRecord | undefined>
  /** The app's live (not revoked) token, if any. */
  findLive(appId: string): Promise<BearerTokenRecord | undefined>
  /** As AccessTokenStore.issueOrReuse, with one live token per app. */
  issueOrReuse(candidate: BearerTokenRecord): Promise<BearerTokenRecord>
  revoke(token: string, nowMs: number): Promise<boolean>
}

/**
 * The joined lookups every verified request makes, one round trip each: added for speed, kept apart
 * from the stores of one table so that their contract (test/storage/contract.ts) and their cost are
 * in one place. Each answers the same one lookup whichever of the credentials exist.
 */
export interface CredentialLookup {
  /**
   * What a request signed with an access token names: the app of this consumer key as
   * AppStore.findByConsumerKey finds it (a rotated-out key too), the access token as AccessTokenStore.findByToken finds it
   * (whatever its app, and a revoked one as it is: the caller decides) and the user it acts for.
   * Each is undefined when not found, `owner` also when there is no token.
   */
  findConsumerWithAccessToken(
    consumerKey: string,
    token: string,
  ): Promise<{ app: AppByConsumerKey | undefined; token: AccessTokenRecord | undefined; owner: UserRecord | undefined }>
  /**
   * The bearer token as BearerTokenStore.findByToken finds it, with its app: undefined for an
   * unknown token; a revoked token is answered like a live one; `app` is undefined when the app no
   * longer exists.
   */
  findBearerTokenWithApp(token: string): Promise<{ token: BearerTokenRecord; app: AppRecord | undefined } | undefined>
}

/**
 * Browser sessions (src/domain/browser-sessions.ts decides what is live). A session is live while it
 * is not ended and its generation is its person's current one: raising the person's generation
 * (endAll) ends every session at once, in one statement, on every instance.
 */
export interface BrowserSessionStore {
  create(session: BrowserSessionRecord): Promise<void>
  /** The session as stored, ended or not (the caller decides). */
  findById(id: string): Promise<BrowserSessionRecord | undefined>
  /** Sets when it was last seen; false when there is no such session. */
  touch(id: string, nowMs: number): Promise<boolean>
  /** Records that the password was entered in it now; false when there is no such session. */
  confirmPassword(id: string, nowMs: number): Promise<boolean>
  /** Ends this session of this person if not ended yet; false otherwise (unknown, ended, someone else's). */
  end(id: string, userId: string, nowMs: number): Promise<boolean>
  /** Ends every not-ended session of the person but `keepId`; how many. */
  endOthers(userId: string, keepId: string, nowMs: number): Promise<number>
  /** Raises the person's session generation, ending all their sessions; false when there is no such person. */
  endAll(userId: string): Promise<boolean>
  /** The person's sessions that are not ended and of their current generation, last seen first. */
  listOpen(userId: string): Promise<BrowserSessionRecord[]>
  /** Marks `mark` (what this session may see once) until untilMs, replacing any earlier mark; false when there is no such session. */
  markReveal(id: string, mark: string, untilMs: number): Promise<boolean>
  /** Takes `mark` if the session holds it, not expired at nowMs: clears it in one statement, so only one caller gets true. */
  takeReveal(id: string, mark: string, nowMs: number): Promise<boolean>
  /**
   * Deletes the person's rows that can never be live again: ended, of an older generation, begun
   * before createdBeforeMs or last seen before seenBeforeMs. How many.
   */
  deleteDead(userId: string, limits: { createdBeforeMs: number; seenBeforeMs: number }): Promise<number>
}

export interface AuditFilter {
  appId?: string
  userId?: string
  /** Only events at or after this time. */
  sinceMs?: number
  /** At most this many (default 100). */
  limit?: number
}

/** The audit trail: append-only; the service never changes a row, and deletes only rows past their retention. */
export interface AuditStore {
  /** Deletes every row written before beforeMs, a batch at a time (no long lock on a big table); how many. */
  deleteBefore(beforeMs: number): Promise<number>
  /** Resolves once the row is committed (on SQLite, in one commit with the other writes of its turn of the event loop). */
  record(event: AuditEventRecord): Promise<void>
  /**
   * The events that match every given filter, newest first; events of the same millisecond in the
   * reverse of the order they were recorded.
   */
  list(filter: AuditFilter): Promise<AuditEventRecord[]>
}

/** How many signature failures an app keeps, and for how long (the domain's rule, handed to the store). */
export interface FailureBounds {
  /** At most this many per app, the newest. */
  keep: number
  /** None older than this. */
  maxAgeMs: number
}

/**
 * Each app's recent refused signed requests, for its developer (the console's diagnostics), shared
 * by every instance. Bounded per app: each write drops what falls outside `bounds`.
 */
export interface SignatureFailureStore {
  /** Keeps the failure, then drops the app's failures beyond the newest `bounds.keep` and those older than `bounds.maxAgeMs` at failure.atMs. */
  record(appId: string, failure: SignatureFailure, bounds: FailureBounds): Promise<void>
  /** The app's failures within `bounds` at nowMs, newest first. */
  recent(appId: string, nowMs: number, bounds: FailureBounds): Promise<SignatureFailure[]>
}

export type { ExternalSignInStore, IdentityLinkStore } from './account-types.ts'
export type { Admission, AdmissionRequest, AdmissionStore, Budget, GenerationValue, LimitSpec } from './counter-types.ts'
export type { LimitState, Limiter, LimiterFactory, NonceStore, NonceUse, NonceVerdict } from './counter-types.ts'
export type { CodeRedemption, NewOAuth2Token, OAuth2ClientStore, OAuth2CodeStore, OAuth2GrantStore } from './oauth2-types.ts'

/**
 * The database's stores as a unit of work sees them (Stores.transaction): every store that writes a
 * credential or its audit row, bound to its transaction.
 */
export type TransactionStores = Pick<
  Stores,
    | 'users'
  | 'apps'
  | 'requestTokens'
  | 'accessTokens'
  | 'bearerTokens'
  | 'audit'
  | 'adminTokens'
  | 'signInUnlocks'
  | 'oauth2Clients'
  | 'oauth2Codes'
  | 'oauth2Grants'
  | 'revocations'
  | 'webhooks'
  | 'identityLinks'
>

/** What /readyz reports: redis is `not_configured` when nonces and limits live in memory. */
export interface DependencyStates {
  database: 'up' | 'down'
  redis: 'up' | 'down' | 'not_configured'
  master_key: 'loaded' | 'unusable'
}

/** The stores: what the use cases read and write, and nothing else (see StorageRuntime). */
export interface Stores {
  users: UserStore
  apps: AppStore
  requestTokens: RequestTokenStore
  accessTokens: AccessTokenStore
  bearerTokens: BearerTokenStore
  audit: AuditStore
  credentials: CredentialLookup
  /** Browser sessions: the developer console, settings and consent pages. */
  sessions: BrowserSessionStore
  nonces: NonceStore
  /** What a verified request spends (its budgets and its nonce), settled in one call. */
  admissions: AdmissionStore
  /** The admin API's credentials (admin-types.ts). */
  adminTokens: AdminTokenStore
  /** When an operator last cleared each key of the sign-in throttle. */
  signInUnlocks: SignInUnlockStore
  /** Read-only lists: the admin API's pages, a person's authorizations. */
  listings: ListingStore
  /** Each app's recent signature failures, for the developer console. */
  signatureFailures: SignatureFailureStore
  /** OAuth 2.0 user context (oauth2-types.ts): each app's client, authorization codes, grants with their tokens. */
  oauth2Clients: OAuth2ClientStore
  oauth2Codes: OAuth2CodeStore
  oauth2Grants: OAuth2GrantStore
  /** The revocation push (revocation-types.ts): the outbox every credential end writes in its unit of work. */
  revocations: RevocationOutboxStore
  /** The webhook endpoints, their deliveries and the delivery lease. */
  webhooks: WebhookStore
  /** Existing accounts (account-types.ts): upstream identities linked to people, sign-ins in progress elsewhere. */
  identityLinks: IdentityLinkStore
  externalSignIns: ExternalSignInStore
  /**
   * Runs `work` as one transaction: what it writes through `tx` is committed together when it
   * resolves, or not at all when it throws (its error is rethrown); the promise settles once the
   * transaction has committed or rolled back. A change and its audit row go together this way.
   * `work` must use only `tx` and wait for nothing else, since the database may be held for it: a
   * call to these stores themselves (or to transaction) from inside a unit throws at once; after a
   * store call of its fails, it must not go on writing (on PostgreSQL the transaction is aborted).
   * On SQLite the units of work of one turn of the event loop share one commit (group commit),
   * each still all or nothing.
   */
  transaction<T>(work: (tx: TransactionStores) => Promise<T>): Promise<T>
}

/** What runs the storage rather than stores things: limiters, derived secrets, health, shutdown. */
/**
 * What the database's credentials looked like at one moment: a value that changes whenever a write
 * may have committed (by this process, the CLI, another instance), or undefined while that cannot
 * be told (an in-memory SQLite database inside a transaction of this process) and the database must
 * be asked. Read on the spot
 * on SQLite; a round trip away (a promise) where it is kept in Redis.
 */
export type Generation = () => GenerationValue | undefined | Promise<GenerationValue>

/** How the validity cache answered a lookup: from itself, from the database, or from the database because it could not tell. */
export type ValidityCacheResult = 'hit' | 'miss' | 'bypass'

export interface StorageRuntime {
  limiters: LimiterFactory
  /** The credentials' generation, where the deployment keeps one (SQLite; PostgreSQL with Redis): what the validity cache checks. */
  generation?: Generation | undefined
  /**
   * Where this process must move the generation after its credential writes (PostgreSQL with Redis):
   * the composition root's layers do (generation-moves.ts).
   */
  moveGeneration?: (() => Promise<void>) | undefined
  /**
   * Where each request's admission reads the generation in its own call (PostgreSQL with Redis:
   * redis/admissions.ts), so the validity cache confirms its answers without a read of its own:
   * whether a move of this process is owed (no answer may then be kept).
   */
  generationReadByAdmissions?: { isOwed(): boolean } | undefined
  /**
   * Publishes a revocation event (its JSON) on the deployment's Redis channel (revocationChannel),
   * when there is a Redis; undefined otherwise.
   */
  publishRevocation?: ((message: string) => Promise<unknown>) | undefined
  /** A secret for `purpose` derived from the master keyring by HKDF: the same on every instance that shares it. */
  deriveSecret(purpose: string): string
  /**
   * The secret that versions before HKDF derived for `purpose` (a lookup hash of a label): still
   * accepted, never issued, so sessions signed before the upgrade keep working until they expire.
   */
  legacyDerivedSecret(purpose: string): string
  /** Resolves when the database (and Redis, when used) answers. */
  ping(): Promise<void>
  /** Each dependency's state, for /readyz: asked all at once, each within a short timeout. */
  checkDependencies(): Promise<DependencyStates>
  /** Waits for the units of work handed over, then closes every connection. */
  close(): Promise<void>
  /**
   * The test mode only (StorageOptions.forTests): keep the rows as they are (after seeding), and
   * go back to them with every nonce and limit count forgotten (the reset).
   */
  testState?: { keep(): Promise<void>; restore(): Promise<void> } | undefined
}

/** Open storage: the stores and their runtime (open-stores.ts). */
export interface Storage {
  stores: Stores
  runtime: StorageRuntime
}
