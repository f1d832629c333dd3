import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import type {
  AccessTokenRecord,
  AppRecord,
  AuditEventRecord,
  BearerTokenRecord,
  RequestTokenRecord,
  UserRecord,
} from '../../../src/storage/records.ts'
import type { NonceBudget } from '../../../src/storage/nonce-share.ts'
import type { StorageRuntime, Stores } from '../../../src/storage/types.ts'

/** Fresh stores opened for a contract, and how to close and remove them. */
export interface OpenedStores {
  stores: Stores
  runtime: StorageRuntime
  close(): Promise<void>
  /**
   * Deletes the user or app of this id straight from the database, its foreign keys not enforced:
   * how a token's owner or app can go missing, which no store method does.
   */
  deleteBehindStores(table: 'users' | 'apps', id: string): Promise<void>
}

export const NOW = 1_750_000_000_000
export const HOUR = 3_600_000

let counter = 0
const base = BigInt(Date.now()) * 1000n
/** Digits, unique within this process run. */
export const nextId = () => String(base + BigInt(++counter))
export const unique = () => `${++counter}x${randomUUID().slice(0, 8)}`

export function userRecord(overrides: Partial<UserRecord> = {}): UserRecord {
  const screenName = `u${++counter}_${randomUUID().slice(0, 6)}`
  return { id: nextId(), screenName, name: 'A Person', passwordHash: 'scrypt$hash', createdAtMs: NOW, ...overrides }
}

export function appRecord(ownerId: string, overrides: Partial<AppRecord> = {}): AppRecord {
  const n = unique()
  return {
    id: nextId(),
    name: `An App ${n}`,
    description: 'Does things',
    website: 'https://app.example',
    ownerId,
    consumerKey: `ck${n}`,
    consumerSecret: `cs${n}`,
    callbackUrls: ['https://app.example/cb', 'myapp://cb'],
    accessLevel: 'read-write',
    type: 'web',
    isSignInEnabled: true,
    signatureMethods: ['HMAC-SHA1', 'PLAINTEXT'],
    isSuspended: false,
    isResourceServer: false,
    createdAtMs: NOW,
    updatedAtMs: NOW,
    ...overrides,
  }
}

export function requestTokenRecord(appId: string, overrides: Partial<RequestTokenRecord> = {}): RequestTokenRecord {
  const n = unique()
  return {
    token: `rt${n}`,
    secret: `rs${n}`,
    appId,
    callback: 'https://app.example/cb?state=1',
    accessLevel: 'read-write',
    status: 'issued',
    userId: null,
    verifierFailures: 0,
    createdAtMs: NOW,
    expiresAtMs: NOW + HOUR,
    ...overrides,
  }
}

export function accessTokenRecord(appId: string, userId: string, overrides: Partial<AccessTokenRecord> = {}): AccessTokenRecord {
  const n = unique()
  return { token: `${userId}-at${n}`, secret: `as${n}`, appId, userId, accessLevel: 'read-write', createdAtMs: NOW, revokedAtMs: null, ...overrides }
}

export function bearerTokenRecord(appId: string, overrides: Partial<BearerTokenRecord> = {}): BearerTokenRecord {
  return { token: `AAAA${unique()}`, appId, createdAtMs: NOW, revokedAtMs: null, ...overrides }
}

export function auditEvent(overrides: Partial<AuditEventRecord> = {}): AuditEventRecord {
  return { atMs: NOW, event: 'request_token.issued', appId: null, userId: null, address: null, detail: null, ...overrides }
}

/**
 * How a contract opens fresh stores. `settleNonceEpoch` as openStorage takes it: only the nonce
 * tests wait for the store's epoch to pass (up to a second), as a server does before it answers.
 */
export type OpenFreshStores = (options: { settleNonceEpoch: boolean; nonceBudget?: Partial<NonceBudget> }) => Promise<OpenedStores>

/** Runs `body` on fresh stores, closed and removed afterwards. */
export async function withFreshStores(open: OpenFreshStores, body: (s: Stores, opened: OpenedStores) => Promise<void>, settleNonceEpoch = false): Promise<void> {
  const opened = await open({ settleNonceEpoch })
  try {
    await body(opened.stores, opened)
  } finally {
    await opened.close()
  }
}

/** Fresh stores holding one user and one app of theirs, left open: the caller closes them. */
export async function openWithApp<T extends { stores: Stores }>(open: (options: { settleNonceEpoch: boolean }) => Promise<T>): Promise<{ opened: T; user: UserRecord; app: AppRecord }> {
  const opened = await open({ settleNonceEpoch: false })
  const user = userRecord()
  const app = appRecord(user.id)
  await opened.stores.users.create(user)
  await opened.stores.apps.create(app)
  return { opened, user, app }
}

/** What every part of the contract runs its tests with. */
export interface ContractKit {
  adapter: string
  open: OpenFreshStores
  withStores(body: (s: Stores, opened: OpenedStores) => Promise<void>): Promise<void>
  /** Runs `body` on fresh stores that hold one user and one app of theirs. */
  withApp(body: (s: Stores, user: UserRecord, app: AppRecord, opened: OpenedStores) => Promise<void>): Promise<void>
  /** An authorized request token of `app`, ready to be exchanged. */
  authorizedToken(s: Stores, app: AppRecord, user: UserRecord, overrides?: Partial<RequestTokenRecord>): Promise<RequestTokenRecord>
  /** The record when the verifier redeems the token (at most 3 failures), else undefined. */
  redeem(s: Stores, token: string, verifier: string, nowMs: number): Promise<RequestTokenRecord | undefined>
}

export function contractKit(adapter: string, open: OpenFreshStores): ContractKit {
  const withStores = (body: (s: Stores, opened: OpenedStores) => Promise<void>) => withFreshStores(open, body)

  /** Runs `body` on fresh stores that hold one user and one app of theirs. */
  function withApp(body: (s: Stores, user: UserRecord, app: AppRecord, opened: OpenedStores) => Promise<void>): Promise<void> {
    return withStores(async (s, opened) => {
      const user = userRecord()
      const app = appRecord(user.id)
      assert.equal(await s.users.create(user), true)
      assert.equal(await s.apps.create(app), true)
      await body(s, user, app, opened)
    })
  }

  /** An authorized request token of `app`, ready to be exchanged. */
  async function authorizedToken(s: Stores, app: AppRecord, user: UserRecord, overrides: Partial<RequestTokenRecord> = {}) {
    const record = requestTokenRecord(app.id, overrides)
    await s.requestTokens.create(record)
    assert.equal(await s.requestTokens.authorize(record.token, user.id, 'verifier-1', NOW), true)
    return record
  }

  /** The record when the verifier redeems the token (at most 3 failures), else undefined. */
  async function redeem(s: Stores, token: string, verifier: string, nowMs: number) {
    const attempt = await s.requestTokens.redeemVerifier(token, verifier, 3, nowMs)
    return attempt.outcome === 'redeemed' ? attempt.record : undefined
  }

  return { adapter, open, withStores, withApp, authorizedToken, redeem }
}
