import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, test } from 'node:test'
import type {
  AccessTokenRecord,
  AppRecord,
  AuditEventRecord,
  BearerTokenRecord,
  BrowserSessionRecord,
  RequestTokenRecord,
  SignatureFailure,
  UserRecord,
} from '../../src/storage/records.ts'
import { AppNameTakenError } from '../../src/storage/errors.ts'
import type { NonceBudget } from '../../src/storage/nonce-share.ts'
import type { StorageRuntime, Stores } from '../../src/storage/types.ts'

/**
 * The one contract every storage adapter passes (src/storage/types.ts, method by method). An
 * adapter's test file calls `storeContract(name, open)`, where `open` gives fresh, empty Stores
 * and a way to close and remove them. Nothing here may depend on one database's behaviour.
 */
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

const NOW = 1_750_000_000_000
const HOUR = 3_600_000

let counter = 0
const base = BigInt(Date.now()) * 1000n
/** Digits, unique within this process run. */
const nextId = () => String(base + BigInt(++counter))
const unique = () => `${++counter}x${randomUUID().slice(0, 8)}`

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

export function storeContract(adapter: string, open: OpenFreshStores): void {
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

  describe(`${adapter} stores`, () => {
    test('answer a ping', async () => {
      await withStores((_s, opened) => opened.runtime.ping())
    })

    describe('users', () => {
      test('a created user is found by id and by screen name, unchanged', async () => {
        await withApp(async (s) => {
          const user = userRecord({ screenName: 'Alice_1', name: 'Alice Émile' })
          assert.equal(await s.users.create(user), true)
          assert.deepEqual(await s.users.findById(user.id), user)
          assert.deepEqual(await s.users.findByScreenName('Alice_1'), user)
          const later = userRecord({ sessionGeneration: 3, isDisabled: true })
          assert.equal(await s.users.create(later), true)
          assert.deepEqual(await s.users.findById(later.id), later, 'a session generation and a disabled account read back as written')
        })
      })

      test('screen names are looked up without regard to case', async () => {
        await withApp(async (s) => {
          const user = userRecord({ screenName: 'MixedCase' })
          await s.users.create(user)
          assert.equal((await s.users.findByScreenName('mixedcase'))?.id, user.id)
          assert.equal((await s.users.findByScreenName('MIXEDCASE'))?.id, user.id)
        })
      })

      test('a screen name taken in another case is refused and the first user is kept', async () => {
        await withApp(async (s) => {
          const first = userRecord({ screenName: 'Taken' })
          await s.users.create(first)
          assert.equal(await s.users.create(userRecord({ screenName: 'tAKEN' })), false)
          assert.deepEqual(await s.users.findByScreenName('taken'), first)
        })
      })

      test('an unknown id or screen name finds nothing', async () => {
        await withApp(async (s) => {
          assert.equal(await s.users.findById('999999'), undefined)
          assert.equal(await s.users.findByScreenName('nobody_here'), undefined)
        })
      })

      test('list returns every user', async () => {
        await withApp(async (s, owner) => {
          const more = [userRecord(), userRecord()]
          for (const user of more) await s.users.create(user)
          const ids = (await s.users.list()).map((u) => u.id).sort()
          assert.deepEqual(ids, [owner.id, ...more.map((u) => u.id)].sort())
        })
      })
    })

    describe('browser sessions', () => {
      const sessionRecord = (userId: string, generation = 0, overrides: Partial<BrowserSessionRecord> = {}): BrowserSessionRecord => ({
        id: `s${unique().replace(/[^A-Za-z0-9]/g, '')}`.padEnd(32, '0').slice(0, 32),
        userId,
        generation,
        createdAtMs: NOW,
        lastSeenAtMs: NOW,
        passwordAtMs: NOW,
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0 « Ünïcode »',
        address: '2001:db8::1',
        endedAtMs: null,
        ...overrides,
      })

      test('a created session is found unchanged; an unknown id finds nothing', async () => {
        await withApp(async (s, user) => {
          const session = sessionRecord(user.id)
          await s.sessions.create(session)
          assert.deepEqual(await s.sessions.findById(session.id), session)
          assert.equal(await s.sessions.findById('0'.repeat(32)), undefined)
        })
      })

      test('touch and confirmPassword set their time only; false for an unknown session', async () => {
        await withApp(async (s, user) => {
          const session = sessionRecord(user.id)
          await s.sessions.create(session)
          assert.equal(await s.sessions.touch(session.id, NOW + 5), true)
          assert.equal(await s.sessions.confirmPassword(session.id, NOW + 7), true)
          assert.deepEqual(await s.sessions.findById(session.id), { ...session, lastSeenAtMs: NOW + 5, passwordAtMs: NOW + 7 })
          assert.equal(await s.sessions.touch('0'.repeat(32), NOW), false)
          assert.equal(await s.sessions.confirmPassword('0'.repeat(32), NOW), false)
        })
      })

      test('a reveal mark is on the session as read until taken; only one of concurrent takers gets it, and only before it expires', async () => {
        await withApp(async (s, user) => {
          const session = sessionRecord(user.id)
          const other = sessionRecord(user.id)
          await s.sessions.create(session)
          await s.sessions.create(other)
          assert.equal(await s.sessions.markReveal(session.id, 'app:key', NOW + 300_000), true)
          assert.equal(await s.sessions.markReveal('0'.repeat(32), 'app:key', NOW + 300_000), false)
          assert.deepEqual((await s.sessions.findById(session.id))?.reveal, { mark: 'app:key', untilMs: NOW + 300_000 })
          assert.equal((await s.sessions.findById(other.id))?.reveal, undefined)
          assert.equal(await s.sessions.takeReveal(session.id, 'app:key', NOW + 300_000), false, 'expired')
          assert.equal(await s.sessions.takeReveal(session.id, 'app:other-key', NOW), false)
          assert.equal(await s.sessions.takeReveal(other.id, 'app:key', NOW), false)
          const takes = await Promise.all(Array.from({ length: 8 }, () => s.sessions.takeReveal(session.id, 'app:key', NOW)))
          assert.deepEqual(takes.filter(Boolean), [true], 'one taker gets it')
          assert.deepEqual(await s.sessions.findById(session.id), session, 'gone once taken; the session itself unchanged')
        })
      })

      test('end ends a session of its own person once; not another person\'s', async () => {
        await withApp(async (s, user) => {
          const other = userRecord()
          await s.users.create(other)
          const session = sessionRecord(user.id)
          await s.sessions.create(session)
          assert.equal(await s.sessions.end(session.id, other.id, NOW + 1), false, "someone else's session")
          assert.equal((await s.sessions.findById(session.id))?.endedAtMs, null)
          assert.equal(await s.sessions.end(session.id, user.id, NOW + 2), true)
          assert.equal((await s.sessions.findById(session.id))?.endedAtMs, NOW + 2)
          assert.equal(await s.sessions.end(session.id, user.id, NOW + 3), false, 'already ended')
          assert.equal((await s.sessions.findById(session.id))?.endedAtMs, NOW + 2)
        })
      })

      test('endOthers ends every open session of the person but one, and no one else\'s', async () => {
        await withApp(async (s, user) => {
          const other = userRecord()
          await s.users.create(other)
          const [keep, a, b] = [sessionRecord(user.id), sessionRecord(user.id), sessionRecord(user.id)]
          const theirs = sessionRecord(other.id)
          for (const session of [keep, a, b, theirs]) await s.sessions.create(session)
          assert.equal(await s.sessions.end(b.id, user.id, NOW), true)
          assert.equal(await s.sessions.endOthers(user.id, keep.id, NOW + 9), 1, 'only a was still open')
          assert.deepEqual((await s.sessions.listOpen(user.id)).map((x) => x.id), [keep.id])
          assert.deepEqual((await s.sessions.listOpen(other.id)).map((x) => x.id), [theirs.id])
        })
      })

      test('endAll raises the generation: every session of the person leaves the open list, the user row shows it', async () => {
        await withApp(async (s, user) => {
          const other = userRecord()
          await s.users.create(other)
          const [a, b] = [sessionRecord(user.id, 0, { lastSeenAtMs: NOW + 1 }), sessionRecord(user.id)]
          const theirs = sessionRecord(other.id)
          for (const session of [a, b, theirs]) await s.sessions.create(session)
          assert.deepEqual((await s.sessions.listOpen(user.id)).map((x) => x.id), [a.id, b.id], 'last seen first')
          assert.equal(await s.sessions.endAll(user.id), true)
          assert.equal((await s.users.findById(user.id))?.sessionGeneration, 1)
          assert.deepEqual(await s.sessions.listOpen(user.id), [])
          assert.equal(await s.sessions.endAll(user.id), true)
          assert.equal((await s.users.findById(user.id))?.sessionGeneration, 2)
          const fresh = sessionRecord(user.id, 2)
          await s.sessions.create(fresh)
          assert.deepEqual((await s.sessions.listOpen(user.id)).map((x) => x.id), [fresh.id], 'a session of the new generation is open')
          assert.deepEqual((await s.sessions.listOpen(other.id)).map((x) => x.id), [theirs.id], "another person's sessions stay")
          assert.equal((await s.users.findById(other.id))?.sessionGeneration, undefined)
          assert.equal(await s.sessions.endAll('999999'), false)
        })
      })

      test('admin.updateUser with endSessions raises the generation in the same change', async () => {
        await withApp(async (s, user) => {
          const updated = await s.users.update(user.id, { passwordHash: 'scrypt$other', endSessions: true })
          assert.equal(updated?.sessionGeneration, 1)
          assert.equal(updated?.passwordHash, 'scrypt$other')
          assert.equal((await s.users.update(user.id, { name: 'Renamed' }))?.sessionGeneration, 1, 'no endSessions: unchanged')
        })
      })

      test('admin sign-in unlocks: the latest clearing of each key, only of the keys asked for', async () => {
        await withApp(async (s) => {
          const key = `account:${randomUUID()}`
          assert.deepEqual(await s.signInUnlocks.latest([key]), new Map())
          await s.signInUnlocks.record(key, NOW)
          await s.signInUnlocks.record(key, NOW + 5)
          await s.signInUnlocks.record('address:192.0.2.1', NOW + 1)
          assert.deepEqual(await s.signInUnlocks.latest([key, 'address:unknown']), new Map([[key, NOW + 5]]))
          assert.deepEqual(await s.signInUnlocks.latest([]), new Map())
        })
      })

      test('deleteDead removes ended, old-generation, too old and idle rows of the person only', async () => {
        await withApp(async (s, user) => {
          const other = userRecord()
          await s.users.create(other)
          await s.sessions.endAll(user.id)
          const live = sessionRecord(user.id, 1, { createdAtMs: NOW, lastSeenAtMs: NOW + 10 })
          const dead = [
            sessionRecord(user.id, 1, { endedAtMs: NOW }),
            sessionRecord(user.id, 0),
            sessionRecord(user.id, 1, { createdAtMs: NOW - 1, lastSeenAtMs: NOW + 10 }),
            sessionRecord(user.id, 1, { lastSeenAtMs: NOW + 4 }),
          ]
          const theirs = sessionRecord(other.id, 0, { endedAtMs: NOW })
          for (const session of [live, ...dead, theirs]) await s.sessions.create(session)
          assert.equal(await s.sessions.deleteDead(user.id, { createdBeforeMs: NOW, seenBeforeMs: NOW + 5 }), dead.length)
          assert.deepEqual(await s.sessions.findById(live.id), live)
          for (const session of dead) assert.equal(await s.sessions.findById(session.id), undefined)
          assert.deepEqual(await s.sessions.findById(theirs.id), theirs, "another person's rows are left")
        })
      })
    })

    describe('apps', () => {
      test('a created app is found by id and by consumer key, unchanged', async () => {
        await withApp(async (s, _user, app) => {
          assert.deepEqual(await s.apps.findById(app.id), app)
          assert.deepEqual(await s.apps.findByConsumerKey(app.consumerKey), app)
        })
      })

      test('an app with a taken id or consumer key is refused', async () => {
        await withApp(async (s, user, app) => {
          assert.equal(await s.apps.create(appRecord(user.id, { id: app.id })), false)
          assert.equal(await s.apps.create(appRecord(user.id, { consumerKey: app.consumerKey })), false)
          assert.deepEqual(await s.apps.list(), [app])
        })
      })

      test('an unknown id or consumer key finds nothing', async () => {
        await withApp(async (s) => {
          assert.equal(await s.apps.findById('123'), undefined)
          assert.equal(await s.apps.findByConsumerKey('no-such-key'), undefined)
        })
      })

      test('update applies the patch, stamps the time and keeps every other field', async () => {
        await withApp(async (s, _user, app) => {
          const patch = {
            name: 'Renamed',
            description: 'Does other things',
            website: 'https://other.example',
            callbackUrls: ['https://other.example/cb'],
            accessLevel: 'read' as const,
            type: 'desktop' as const,
            isSignInEnabled: false,
            signatureMethods: ['HMAC-SHA256' as const, 'PLAINTEXT' as const],
            isSuspended: true,
            suspendedBy: 'owner' as const,
            isResourceServer: true,
          }
          const updated = await s.apps.update(app.id, patch, NOW + 5)
          const expected = { ...app, ...patch, updatedAtMs: NOW + 5 }
          assert.deepEqual(updated, expected)
          assert.deepEqual(await s.apps.findById(app.id), expected)
        })
      })

      test('an update of one field keeps every other, those of a suspended resource server included', async () => {
        await withStores(async (s) => {
          const user = userRecord()
          await s.users.create(user)
          const app = appRecord(user.id, { isSuspended: true, suspendedBy: 'operator', isResourceServer: true, isSignInEnabled: true })
          await s.apps.create(app)
          assert.deepEqual(await s.apps.findById(app.id), app, 'created suspended by the operator')
          for (const patch of [{ description: 'Only this' }, { website: 'https://only.example' }, { accessLevel: 'read' as const }, { name: 'Only the name' }]) {
            const before = await s.apps.findById(app.id)
            assert.deepEqual(await s.apps.update(app.id, patch, NOW + 9), { ...before, ...patch, updatedAtMs: NOW + 9 }, JSON.stringify(patch))
          }
        })
      })

      test('lifting a suspension forgets who suspended the app', async () => {
        await withStores(async (s) => {
          const user = userRecord()
          await s.users.create(user)
          const app = appRecord(user.id, { isSuspended: true, suspendedBy: 'owner' })
          await s.apps.create(app)
          const { suspendedBy: _gone, ...lifted } = { ...app, isSuspended: false, updatedAtMs: NOW + 1 }
          assert.deepEqual(await s.apps.update(app.id, { isSuspended: false }, NOW + 1), lifted)
          assert.deepEqual(await s.apps.update(app.id, { isSuspended: true }, NOW + 2), { ...lifted, isSuspended: true, updatedAtMs: NOW + 2 }, 'suspended by no one named')
        })
      })

      test('an owner may hold as many apps as the create says, not one more; without a bound, any number', async () => {
        await withStores(async (s) => {
          const user = userRecord()
          await s.users.create(user)
          assert.equal(await s.apps.create(appRecord(user.id), { ownerMayHold: 2 }), true)
          assert.equal(await s.apps.create(appRecord(user.id), { ownerMayHold: 2 }), true)
          const third = appRecord(user.id)
          await assert.rejects(s.apps.create(third, { ownerMayHold: 2 }), { name: 'OwnerAppLimitError', message: 'the owner already holds 2 apps, the most allowed' })
          assert.equal(await s.apps.findById(third.id), undefined)
          assert.equal(await s.apps.create(third, { ownerMayHold: 3 }), true)
          assert.equal(await s.apps.create(appRecord(user.id)), true)
          const other = userRecord()
          await s.users.create(other)
          assert.equal(await s.apps.create(appRecord(other.id), { ownerMayHold: 1 }), true, "another owner's apps do not count")
        })
      })

      test('update of an unknown app answers undefined', async () => {
        await withApp(async (s) => {
          assert.equal(await s.apps.update('404', { name: 'x' }, NOW), undefined)
        })
      })

      test('rotateKeys replaces the key pair: the old consumer key finds nothing', async () => {
        await withApp(async (s, _user, app) => {
          const keys = { consumerKey: `new-${unique()}`, consumerSecret: `new-secret-${unique()}` }
          const rotated = await s.apps.rotateKeys(app.id, { keys, revokeTokens: true, nowMs: NOW + 1 })
          assert.deepEqual(rotated, { ...app, ...keys, updatedAtMs: NOW + 1 })
          assert.equal(await s.apps.findByConsumerKey(app.consumerKey), undefined)
          assert.equal((await s.apps.findByConsumerKey(keys.consumerKey))?.id, app.id)
        })
      })

      test('rotateKeys revokes every request, access and bearer token of the app, and only of that app', async () => {
        await withApp(async (s, user, app) => {
          const other = appRecord(user.id)
          await s.apps.create(other)
          const issued = requestTokenRecord(app.id)
          await s.requestTokens.create(issued)
          const authorized = await authorizedToken(s, app, user)
          const access = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
          const bearer = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
          const otherAccess = await s.accessTokens.issueOrReuse(accessTokenRecord(other.id, user.id))
          const otherBearer = await s.bearerTokens.issueOrReuse(bearerTokenRecord(other.id))
          const otherRequest = await authorizedToken(s, other, user)

          await s.apps.rotateKeys(app.id, { keys: { consumerKey: `k${unique()}`, consumerSecret: `s${unique()}` }, revokeTokens: true, nowMs: NOW + 1 })

          assert.equal(await s.requestTokens.authorize(issued.token, user.id, 'v', NOW + 2), false)
          assert.equal((await s.requestTokens.findByToken(issued.token))?.status, 'dead')
          assert.equal(await redeem(s, authorized.token, 'verifier-1', NOW + 2), undefined)
          assert.equal((await s.accessTokens.findByToken(access.token))?.revokedAtMs, NOW + 1)
          assert.equal(await s.accessTokens.findLive(app.id, user.id, access.accessLevel), undefined)
          assert.equal((await s.bearerTokens.findByToken(bearer.token))?.revokedAtMs, NOW + 1)

          assert.equal((await s.accessTokens.findByToken(otherAccess.token))?.revokedAtMs, null)
          assert.equal((await s.bearerTokens.findByToken(otherBearer.token))?.revokedAtMs, null)
          assert.equal((await redeem(s, otherRequest.token, 'verifier-1', NOW + 2))?.token, otherRequest.token)
        })
      })

      test('rotateKeys of an unknown app answers undefined', async () => {
        await withApp(async (s) => {
          assert.equal(await s.apps.rotateKeys('404', { keys: { consumerKey: 'k', consumerSecret: 's' }, revokeTokens: true, nowMs: NOW }), undefined)
        })
      })

      test('delete removes the app and every token issued to it', async () => {
        await withApp(async (s, user, app) => {
          const request = await authorizedToken(s, app, user)
          const access = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
          const bearer = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))

          assert.equal(await s.apps.delete(app.id), true)

          assert.equal(await s.apps.findById(app.id), undefined)
          assert.equal(await s.apps.findByConsumerKey(app.consumerKey), undefined)
          assert.equal(await s.requestTokens.findByToken(request.token), undefined)
          assert.equal(await s.accessTokens.findByToken(access.token), undefined)
          assert.equal(await s.bearerTokens.findByToken(bearer.token), undefined)
          assert.deepEqual(await s.users.findById(user.id), user, 'the owner stays')
        })
      })

      test('delete of an unknown or already deleted app answers false', async () => {
        await withApp(async (s, _user, app) => {
          assert.equal(await s.apps.delete('404'), false)
          await s.apps.delete(app.id)
          assert.equal(await s.apps.delete(app.id), false)
        })
      })
    })

    // The joined lookups of the verify path (CredentialLookup): each must answer exactly what the
    // one-table stores would, whichever of the credentials exist.
    describe('credential lookups', () => {
      describe('findConsumerWithAccessToken', () => {
        test('gives the app, the token and the user the token acts for (not the app\'s owner)', async () => {
          await withApp(async (s, owner, app) => {
            const person = userRecord()
            await s.users.create(person)
            const ownerToken = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, owner.id))
            const personToken = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, person.id, { accessLevel: 'read' }))
            assert.deepEqual(await s.credentials.findConsumerWithAccessToken(app.consumerKey, ownerToken.token), { app, token: ownerToken, owner })
            assert.deepEqual(await s.credentials.findConsumerWithAccessToken(app.consumerKey, personToken.token), { app, token: personToken, owner: person })
          })
        })

        test('an unknown consumer key or token leaves just that part out; both unknown, all three', async () => {
          await withApp(async (s, user, app) => {
            const token = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
            assert.deepEqual(await s.credentials.findConsumerWithAccessToken('no-such-key', token.token), { app: undefined, token, owner: user })
            assert.deepEqual(await s.credentials.findConsumerWithAccessToken(app.consumerKey, `${user.id}-unknown`), { app, token: undefined, owner: undefined })
            const nothing = { app: undefined, token: undefined, owner: undefined }
            assert.deepEqual(await s.credentials.findConsumerWithAccessToken('no-such-key', `${user.id}-unknown`), nothing)
          })
        })

        test('gives a token of another app as it is (the caller refuses it), whatever that app\'s state', async () => {
          await withApp(async (s, user, app) => {
            const other = appRecord(user.id, { isSuspended: true, signatureMethods: ['HMAC-SHA1'] })
            await s.apps.create(other)
            const otherToken = await s.accessTokens.issueOrReuse(accessTokenRecord(other.id, user.id))
            assert.deepEqual(await s.credentials.findConsumerWithAccessToken(app.consumerKey, otherToken.token), { app, token: otherToken, owner: user })
            assert.deepEqual(await s.credentials.findConsumerWithAccessToken(other.consumerKey, otherToken.token), { app: other, token: otherToken, owner: user })
          })
        })

        test('gives a revoked token as it is, with its owner', async () => {
          await withApp(async (s, user, app) => {
            const token = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
            assert.equal(await s.accessTokens.revoke(token.token, NOW + 5), true)
            const found = await s.credentials.findConsumerWithAccessToken(app.consumerKey, token.token)
            assert.deepEqual(found, { app, token: { ...token, revokedAtMs: NOW + 5 }, owner: user })
          })
        })

        test('gives a token whose owner is gone with no owner', async () => {
          await withApp(async (s, _owner, app, opened) => {
            const person = userRecord()
            await s.users.create(person)
            const token = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, person.id))
            await opened.deleteBehindStores('users', person.id)
            assert.deepEqual(await s.credentials.findConsumerWithAccessToken(app.consumerKey, token.token), { app, token, owner: undefined })
          })
        })
      })

      describe('findBearerTokenWithApp', () => {
        test('gives the token with its app; an unknown token finds nothing', async () => {
          await withApp(async (s, user, app) => {
            const other = appRecord(user.id, { isSuspended: true, signatureMethods: ['HMAC-SHA1'] })
            await s.apps.create(other)
            const token = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
            const otherToken = await s.bearerTokens.issueOrReuse(bearerTokenRecord(other.id))
            assert.deepEqual(await s.credentials.findBearerTokenWithApp(token.token), { token, app })
            assert.deepEqual(await s.credentials.findBearerTokenWithApp(otherToken.token), { token: otherToken, app: other })
            assert.equal(await s.credentials.findBearerTokenWithApp('AAAAunknown'), undefined)
          })
        })

        test('gives a revoked token as it is, with its app', async () => {
          await withApp(async (s, _user, app) => {
            const token = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
            assert.equal(await s.bearerTokens.revoke(token.token, NOW + 5), true)
            assert.deepEqual(await s.credentials.findBearerTokenWithApp(token.token), { token: { ...token, revokedAtMs: NOW + 5 }, app })
          })
        })

        test('gives a token whose app is gone with no app', async () => {
          await withApp(async (s, _user, app, opened) => {
            const token = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
            await opened.deleteBehindStores('apps', app.id)
            assert.equal(await s.apps.findById(app.id), undefined)
            assert.deepEqual(await s.credentials.findBearerTokenWithApp(token.token), { token, app: undefined })
          })
        })
      })
    })

    describe('request tokens', () => {
      test('a created token is found unchanged', async () => {
        await withApp(async (s, _user, app) => {
          const record = requestTokenRecord(app.id, { callback: 'oob', accessLevel: 'read' })
          await s.requestTokens.create(record)
          assert.deepEqual(await s.requestTokens.findByToken(record.token), record)
          assert.equal(await s.requestTokens.findByToken('unknown'), undefined)
        })
      })

      test('authorize turns an issued token authorized for the user, with the verifier', async () => {
        await withApp(async (s, user, app) => {
          const record = requestTokenRecord(app.id)
          await s.requestTokens.create(record)
          assert.equal(await s.requestTokens.authorize(record.token, user.id, 'the-verifier', NOW), true)
          const found = await s.requestTokens.findByToken(record.token)
          assert.deepEqual(found, { ...record, status: 'authorized', userId: user.id })
          assert.equal((await redeem(s, record.token, 'the-verifier', NOW))?.token, record.token)
        })
      })

      test('authorize works only once', async () => {
        await withApp(async (s, user, app) => {
          const record = await authorizedToken(s, app, user)
          assert.equal(await s.requestTokens.authorize(record.token, user.id, 'another', NOW), false)
          assert.equal(await redeem(s, record.token, 'another', NOW), undefined, 'the first verifier still rules')
          assert.equal((await redeem(s, record.token, 'verifier-1', NOW))?.token, record.token)
        })
      })

      test('authorize refuses an expired token', async () => {
        await withApp(async (s, user, app) => {
          const record = requestTokenRecord(app.id, { expiresAtMs: NOW - 1 })
          await s.requestTokens.create(record)
          assert.equal(await s.requestTokens.authorize(record.token, user.id, 'v', NOW), false)
          assert.equal((await s.requestTokens.findByToken(record.token))?.status, 'issued')
        })
      })

      test('authorize refuses an unknown token', async () => {
        await withApp(async (s, user) => {
          assert.equal(await s.requestTokens.authorize('unknown', user.id, 'v', NOW), false)
        })
      })

      test('deny turns an issued token denied; it can then be neither authorized nor exchanged', async () => {
        await withApp(async (s, user, app) => {
          const record = requestTokenRecord(app.id)
          await s.requestTokens.create(record)
          assert.equal(await s.requestTokens.deny(record.token, NOW), true)
          assert.equal((await s.requestTokens.findByToken(record.token))?.status, 'denied')
          assert.equal(await s.requestTokens.authorize(record.token, user.id, 'v', NOW), false)
          assert.equal(await redeem(s, record.token, 'verifier-1', NOW), undefined)
          assert.equal(await s.requestTokens.deny(record.token, NOW), false)
        })
      })

      test('deny refuses an authorized, expired or unknown token', async () => {
        await withApp(async (s, user, app) => {
          const authorized = await authorizedToken(s, app, user)
          assert.equal(await s.requestTokens.deny(authorized.token, NOW), false)
          const expired = requestTokenRecord(app.id, { expiresAtMs: NOW - 1 })
          await s.requestTokens.create(expired)
          assert.equal(await s.requestTokens.deny(expired.token, NOW), false)
          assert.equal(await s.requestTokens.deny('unknown', NOW), false)
        })
      })

      test('redeemVerifier gives an authorized token once, then never again', async () => {
        await withApp(async (s, user, app) => {
          const record = await authorizedToken(s, app, user)
          const consumed = await redeem(s, record.token, 'verifier-1', NOW)
          assert.equal(consumed?.token, record.token)
          assert.equal(consumed?.secret, record.secret)
          assert.equal(consumed?.userId, user.id)
          assert.equal(consumed?.callback, record.callback)
          assert.equal(await redeem(s, record.token, 'verifier-1', NOW), undefined)
          assert.equal((await s.requestTokens.findByToken(record.token))?.status, 'used')
        })
      })

      test('a wrong verifier redeems nothing and counts one failure; the right one still works below the maximum', async () => {
        await withApp(async (s, user, app) => {
          const record = await authorizedToken(s, app, user)
          assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, 'verifier-2', 3, NOW), { outcome: 'wrong-verifier', failures: 1 })
          assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, '', 3, NOW), { outcome: 'wrong-verifier', failures: 2 })
          const found = await s.requestTokens.findByToken(record.token)
          assert.deepEqual([found?.status, found?.verifierFailures], ['authorized', 2])
          assert.equal((await redeem(s, record.token, 'verifier-1', NOW))?.token, record.token)
        })
      })

      test('the wrong verifier that reaches the maximum kills the token: the right one then finds it not redeemable', async () => {
        await withApp(async (s, user, app) => {
          const record = await authorizedToken(s, app, user)
          for (let i = 1; i <= 3; i++) {
            assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, `wrong-${i}`, 3, NOW), { outcome: 'wrong-verifier', failures: i })
          }
          assert.equal((await s.requestTokens.findByToken(record.token))?.status, 'dead')
          assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, 'verifier-1', 3, NOW), { outcome: 'not-redeemable' })
          assert.deepEqual(await s.requestTokens.redeemVerifier(record.token, 'wrong-4', 3, NOW), { outcome: 'not-redeemable' }, 'a dead token counts nothing more')
          assert.equal((await s.requestTokens.findByToken(record.token))?.verifierFailures, 3)
        })
      })

      test('an issued token has no verifier yet: every attempt on it is a counted failure', async () => {
        await withApp(async (s, _user, app) => {
          const issued = requestTokenRecord(app.id)
          await s.requestTokens.create(issued)
          assert.deepEqual(await s.requestTokens.redeemVerifier(issued.token, 'verifier-1', 3, NOW), { outcome: 'wrong-verifier', failures: 1 })
          assert.equal((await s.requestTokens.findByToken(issued.token))?.status, 'issued')
        })
      })

      test('of 100 concurrent wrong verifiers and the right one, at most 3 are counted; the right one wins only before the third', async () => {
        await withApp(async (s, user, app) => {
          const record = await authorizedToken(s, app, user)
          const attempts = Array.from({ length: 101 }, (_, i) => (i === 50 ? 'verifier-1' : `wrong-${i}`))
          const results = await Promise.all(attempts.map((v) => s.requestTokens.redeemVerifier(record.token, v, 3, NOW).then((a) => ({ v, a }))))
          const counted = results.filter((r) => r.a.outcome === 'wrong-verifier')
          assert.ok(counted.length <= 3, `${counted.length} failures counted`)
          assert.deepEqual(counted.map((r) => (r.a as { failures: number }).failures).sort(), [1, 2, 3].slice(0, counted.length))
          const right = results.find((r) => r.v === 'verifier-1')!.a
          const found = await s.requestTokens.findByToken(record.token)
          if (right.outcome === 'redeemed') {
            assert.equal(found?.status, 'used')
            assert.ok(counted.length < 3, 'redeemed only while fewer than 3 failures were counted')
          } else {
            assert.deepEqual([right.outcome, counted.length, found?.status], ['not-redeemable', 3, 'dead'])
          }
        })
      })

      test('of 20 concurrent authorize or deny calls exactly one wins, and the token is in that state', async () => {
        await withApp(async (s, user, app) => {
          const record = requestTokenRecord(app.id)
          await s.requestTokens.create(record)
          const calls = Array.from({ length: 20 }, (_, i) =>
            i % 2 === 0 ? s.requestTokens.authorize(record.token, user.id, `v${i}`, NOW).then((ok) => (ok ? `authorized v${i}` : '')) : s.requestTokens.deny(record.token, NOW).then((ok) => (ok ? 'denied' : '')),
          )
          const winners = (await Promise.all(calls)).filter(Boolean)
          assert.equal(winners.length, 1)
          const status = (await s.requestTokens.findByToken(record.token))?.status
          assert.equal(status, winners[0]!.split(' ')[0])
          if (status === 'authorized') assert.equal((await redeem(s, record.token, winners[0]!.split(' ')[1]!, NOW))?.token, record.token)
        })
      })

      test('of 20 concurrent redeemVerifier calls with the right verifier exactly one gets the token', async () => {
        await withApp(async (s, user, app) => {
          const record = await authorizedToken(s, app, user)
          const results = await Promise.all(Array.from({ length: 20 }, () => redeem(s, record.token, 'verifier-1', NOW)))
          assert.equal(results.filter((r) => r !== undefined).length, 1)
        })
      })

      test('redeemVerifier refuses an expired or unknown token, and an issued one with any verifier', async () => {
        await withApp(async (s, user, app) => {
          const issued = requestTokenRecord(app.id)
          await s.requestTokens.create(issued)
          assert.equal(await redeem(s, issued.token, 'verifier-1', NOW), undefined)
          const authorized = await authorizedToken(s, app, user)
          assert.equal(await redeem(s, authorized.token, 'verifier-1', authorized.expiresAtMs + 1), undefined)
          assert.equal(await redeem(s, 'unknown', 'verifier-1', NOW), undefined)
        })
      })

      test('deleteExpired removes expired tokens only and says how many', async () => {
        await withApp(async (s, _user, app) => {
          const expired = [requestTokenRecord(app.id, { expiresAtMs: NOW - HOUR }), requestTokenRecord(app.id, { expiresAtMs: NOW - 1 })]
          const live = requestTokenRecord(app.id, { expiresAtMs: NOW + HOUR })
          for (const record of [...expired, live]) await s.requestTokens.create(record)
          assert.equal(await s.requestTokens.deleteExpired(NOW), 2)
          for (const record of expired) assert.equal(await s.requestTokens.findByToken(record.token), undefined)
          assert.deepEqual(await s.requestTokens.findByToken(live.token), live)
          assert.equal(await s.requestTokens.deleteExpired(NOW), 0)
        })
      })
    })

    describe('access tokens', () => {
      test('issueOrReuse stores the candidate when there is no live token', async () => {
        await withApp(async (s, user, app) => {
          const candidate = accessTokenRecord(app.id, user.id)
          assert.deepEqual(await s.accessTokens.issueOrReuse(candidate), candidate)
          assert.deepEqual(await s.accessTokens.findByToken(candidate.token), candidate)
          assert.deepEqual(await s.accessTokens.findLive(app.id, user.id, 'read-write'), candidate)
        })
      })

      test('issueOrReuse returns the live token instead of a new candidate', async () => {
        await withApp(async (s, user, app) => {
          const first = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
          const second = accessTokenRecord(app.id, user.id)
          assert.deepEqual(await s.accessTokens.issueOrReuse(second), first)
          assert.equal(await s.accessTokens.findByToken(second.token), undefined)
        })
      })

      test('another access level or another user gets its own token', async () => {
        await withApp(async (s, user, app) => {
          const other = userRecord()
          await s.users.create(other)
          const first = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
          const read = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id, { accessLevel: 'read' }))
          const otherUser = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, other.id))
          assert.equal(new Set([first.token, read.token, otherUser.token]).size, 3)
        })
      })

      test('20 concurrent issueOrReuse calls for one grant all get the same token', async () => {
        await withApp(async (s, user, app) => {
          const results = await Promise.all(
            Array.from({ length: 20 }, () => s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))),
          )
          assert.equal(new Set(results.map((r) => r.token)).size, 1)
          assert.equal((await s.accessTokens.findLive(app.id, user.id, 'read-write'))?.token, results[0]?.token)
        })
      })

      test('revoke ends a token once; the next issueOrReuse gives a new one', async () => {
        await withApp(async (s, user, app) => {
          const first = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
          assert.equal(await s.accessTokens.revoke(first.token, NOW + 7), true)
          assert.equal(await s.accessTokens.revoke(first.token, NOW + 8), false)
          assert.equal((await s.accessTokens.findByToken(first.token))?.revokedAtMs, NOW + 7)
          assert.equal(await s.accessTokens.findLive(app.id, user.id, 'read-write'), undefined)
          const candidate = accessTokenRecord(app.id, user.id)
          assert.deepEqual(await s.accessTokens.issueOrReuse(candidate), candidate)
        })
      })

      test('of 20 concurrent revoke calls exactly one answers true', async () => {
        await withApp(async (s, user, app) => {
          const token = await s.accessTokens.issueOrReuse(accessTokenRecord(app.id, user.id))
          const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.accessTokens.revoke(token.token, NOW + i)))
          assert.equal(results.filter(Boolean).length, 1)
        })
      })

      test('revoke of an unknown token answers false', async () => {
        await withApp(async (s) => {
          assert.equal(await s.accessTokens.revoke('unknown', NOW), false)
        })
      })
    })

    describe('bearer tokens', () => {
      test('issueOrReuse stores the candidate when the app has no live token', async () => {
        await withApp(async (s, _user, app) => {
          const candidate = bearerTokenRecord(app.id)
          assert.deepEqual(await s.bearerTokens.issueOrReuse(candidate), candidate)
          assert.deepEqual(await s.bearerTokens.findByToken(candidate.token), candidate)
        })
      })

      test('issueOrReuse returns the live token instead of a new candidate', async () => {
        await withApp(async (s, _user, app) => {
          const first = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
          const second = bearerTokenRecord(app.id)
          assert.deepEqual(await s.bearerTokens.issueOrReuse(second), first)
          assert.equal(await s.bearerTokens.findByToken(second.token), undefined)
        })
      })

      test('each app has its own token', async () => {
        await withApp(async (s, user, app) => {
          const other = appRecord(user.id)
          await s.apps.create(other)
          const a = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
          const b = await s.bearerTokens.issueOrReuse(bearerTokenRecord(other.id))
          assert.notEqual(a.token, b.token)
        })
      })

      test('20 concurrent issueOrReuse calls for one app all get the same token', async () => {
        await withApp(async (s, _user, app) => {
          const results = await Promise.all(Array.from({ length: 20 }, () => s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))))
          assert.equal(new Set(results.map((r) => r.token)).size, 1)
        })
      })

      test('revoke ends a token once; the next issueOrReuse gives a new one', async () => {
        await withApp(async (s, _user, app) => {
          const first = await s.bearerTokens.issueOrReuse(bearerTokenRecord(app.id))
          assert.equal(await s.bearerTokens.revoke(first.token, NOW + 3), true)
          assert.equal(await s.bearerTokens.revoke(first.token, NOW + 4), false)
          assert.equal(await s.bearerTokens.revoke('unknown', NOW), false)
          assert.equal((await s.bearerTokens.findByToken(first.token))?.revokedAtMs, NOW + 3)
          const candidate = bearerTokenRecord(app.id)
          assert.deepEqual(await s.bearerTokens.issueOrReuse(candidate), candidate)
        })
      })

    })

    describe('audit', () => {
      test('a recorded event reads back unchanged, detail and all', async () => {
        await withStores(async (s) => {
          const event = auditEvent({
            event: 'access_token.issued',
            appId: '123',
            userId: '456',
            address: '2001:db8::1',
            detail: { access_level: 'read', reused: false, count: 3, fields: ['name', 'website'], note: 'Émile "quoted"' },
          })
          await s.audit.record(event)
          assert.deepEqual(await s.audit.list({}), [event])
        })
      })

      test('an event without app, user, address or detail reads back with nulls', async () => {
        await withStores(async (s) => {
          const event = auditEvent({ event: 'master_key.rotated', atMs: 4_102_444_800_123 })
          await s.audit.record(event)
          const [read] = await s.audit.list({})
          assert.deepEqual(read, event)
          assert.strictEqual(read?.atMs, 4_102_444_800_123, 'a number, not a string or bigint')
        })
      })

      test('deleteBefore deletes exactly the rows written before the time, and says how many', async () => {
        await withStores(async (s) => {
          for (const [atMs, address] of [[NOW - 2, 'a'], [NOW - 1, 'b'], [NOW, 'c'], [NOW + 1, 'd']] as const) {
            await s.audit.record(auditEvent({ atMs, address }))
          }
          assert.equal(await s.audit.deleteBefore(NOW), 2)
          assert.deepEqual((await s.audit.list({})).map((e) => e.address), ['d', 'c'])
          assert.equal(await s.audit.deleteBefore(NOW), 0)
        })
      })

      test("deleteBefore deletes every row before the time, past one statement's batch of 5,000", async () => {
        await withStores(async (s) => {
          await s.transaction(async (tx) => {
            for (let i = 0; i < 5_003; i++) await tx.audit.record(auditEvent({ atMs: NOW - 5_003 + i + (i >= 5_001 ? 10 : 0) }))
          })
          assert.equal(await s.audit.deleteBefore(NOW), 5_001)
          assert.equal((await s.audit.list({ limit: 10_000 })).length, 2)
        })
      })

      test('lists newest first, and events of one millisecond in reverse order of recording', async () => {
        await withStores(async (s) => {
          for (const [atMs, address] of [[NOW, 'a'], [NOW + 2, 'b'], [NOW + 1, 'c'], [NOW + 3, 'd'], [NOW + 3, 'e']] as const) {
            await s.audit.record(auditEvent({ atMs, address }))
          }
          assert.deepEqual((await s.audit.list({})).map((e) => e.address), ['e', 'd', 'b', 'c', 'a'])
        })
      })

      test('filters by app, by user and by time, alone and together', async () => {
        await withStores(async (s) => {
          await s.audit.record(auditEvent({ atMs: NOW, appId: '1', userId: '10', address: 'old-1-10' }))
          await s.audit.record(auditEvent({ atMs: NOW + HOUR, appId: '1', userId: '10', address: 'new-1-10' }))
          await s.audit.record(auditEvent({ atMs: NOW + HOUR, appId: '1', userId: null, address: 'new-1' }))
          await s.audit.record(auditEvent({ atMs: NOW + HOUR, appId: '2', userId: '10', address: 'new-2-10' }))
          await s.audit.record(auditEvent({ atMs: NOW + HOUR, appId: null, userId: '20', address: 'new-20' }))
          const addresses = async (filter: Parameters<Stores['audit']['list']>[0]) => (await s.audit.list(filter)).map((e) => e.address).sort()
          assert.deepEqual(await addresses({ appId: '1' }), ['new-1', 'new-1-10', 'old-1-10'])
          assert.deepEqual(await addresses({ userId: '10' }), ['new-1-10', 'new-2-10', 'old-1-10'])
          assert.deepEqual(await addresses({ sinceMs: NOW + 1 }), ['new-1', 'new-1-10', 'new-2-10', 'new-20'])
          assert.deepEqual(await addresses({ sinceMs: NOW + HOUR }), ['new-1', 'new-1-10', 'new-2-10', 'new-20'], 'since is inclusive')
          assert.deepEqual(await addresses({ appId: '1', userId: '10', sinceMs: NOW + 1 }), ['new-1-10'])
          assert.deepEqual(await addresses({ appId: '3' }), [])
        })
      })

      test('limit keeps the newest; without one, at most 100', async () => {
        await withStores(async (s) => {
          for (let i = 0; i < 103; i++) await s.audit.record(auditEvent({ atMs: NOW + i }))
          assert.deepEqual((await s.audit.list({ limit: 3 })).map((e) => e.atMs), [NOW + 102, NOW + 101, NOW + 100])
          const all = await s.audit.list({})
          assert.equal(all.length, 100)
          assert.equal(all.at(-1)?.atMs, NOW + 3)
        })
      })

      test('events outlive their app: deleting it leaves its history', async () => {
        await withApp(async (s, user, app) => {
          await s.audit.record(auditEvent({ appId: app.id, userId: user.id }))
          await s.audit.record(auditEvent({ appId: 'never-existed', userId: 'nobody' }))
          assert.equal(await s.apps.delete(app.id), true)
          assert.equal((await s.audit.list({ appId: app.id })).length, 1)
          assert.equal((await s.audit.list({ appId: 'never-existed' })).length, 1)
        })
      })
    })

    describe('limiters', () => {
      test('allow `limit` hits of a key in a window, then refuse', async () => {
        await withStores(async (_s, { runtime }) => {
          const limiter = runtime.limiters.create(`contract-${unique()}`, 3, 900)
          const states = []
          for (let i = 0; i < 4; i++) states.push(await limiter.hit('key'))
          assert.deepEqual(states.map((st) => st.isAllowed), [true, true, true, false])
          assert.deepEqual(states.map((st) => st.remaining), [2, 1, 0, 0])
          assert.deepEqual(states.map((st) => st.limit), [3, 3, 3, 3])
          // The window started at the first hit and ends 900 s later, for every state of it.
          const now = Date.now()
          for (const state of states) assert.ok(state.resetAtMs > now + 890_000 && state.resetAtMs <= now + 900_000, `${state.resetAtMs - now} ms to the reset`)
          const unseen = await limiter.peek('never-hit')
          assert.ok(unseen.resetAtMs > now + 890_000 && unseen.resetAtMs <= Date.now() + 900_000, 'a key never hit: a whole window ahead')
          assert.deepEqual([unseen.remaining, unseen.limit, unseen.isAllowed], [3, 3, true])
        })
      })

      test('count each key, and each limiter, on its own', async () => {
        await withStores(async (_s, { runtime }) => {
          const a = runtime.limiters.create(`contract-a-${unique()}`, 1, 900)
          const b = runtime.limiters.create(`contract-b-${unique()}`, 1, 900)
          assert.equal((await a.hit('k1')).isAllowed, true)
          assert.equal((await a.hit('k2')).isAllowed, true)
          assert.equal((await b.hit('k1')).isAllowed, true)
          assert.equal((await a.hit('k1')).isAllowed, false)
        })
      })

      test('a refund gives back one hit of the window: the next is allowed again, once', async () => {
        await withStores(async (_s, { runtime }) => {
          const limiter = runtime.limiters.create(`contract-${unique()}`, 2, 900)
          await limiter.hit('key')
          await limiter.hit('key')
          assert.equal((await limiter.peek('key')).remaining, 0)
          await limiter.refund('key')
          assert.equal((await limiter.peek('key')).remaining, 1)
          assert.equal((await limiter.hit('key')).isAllowed, true)
          assert.equal((await limiter.hit('key')).isAllowed, false)
        })
      })

      test('peek tells the state without counting a hit', async () => {
        await withStores(async (_s, { runtime }) => {
          const limiter = runtime.limiters.create(`contract-${unique()}`, 2, 900)
          assert.equal((await limiter.peek('key')).remaining, 2)
          await limiter.hit('key')
          assert.equal((await limiter.peek('key')).remaining, 1)
          assert.equal((await limiter.peek('key')).remaining, 1)
          assert.equal((await limiter.hit('key')).isAllowed, true)
        })
      })

      test('peek says whether one more hit would be allowed', async () => {
        await withStores(async (_s, { runtime }) => {
          const limiter = runtime.limiters.create(`contract-${unique()}`, 2, 900)
          assert.equal((await limiter.peek('key')).isAllowed, true)
          await limiter.hit('key')
          assert.equal((await limiter.peek('key')).isAllowed, true)
          await limiter.hit('key')
          assert.equal((await limiter.peek('key')).isAllowed, false, 'the limit is used up')
          assert.equal((await limiter.hit('key')).isAllowed, false)
        })
      })

      test('reset forgets the hits of a key', async () => {
        await withStores(async (_s, { runtime }) => {
          const limiter = runtime.limiters.create(`contract-${unique()}`, 1, 900)
          await limiter.hit('key')
          assert.equal((await limiter.hit('key')).isAllowed, false)
          await limiter.reset('key')
          assert.equal((await limiter.hit('key')).isAllowed, true)
        })
      })
    })
  })

  describe(`${adapter} app names`, () => {
    test('an owner cannot have two apps of one name, in any case; another owner can', async () => {
      await withApp(async (s, user, app) => {
        assert.equal(await s.apps.create(appRecord(user.id, { name: app.name.toUpperCase() })), false)
        const other = userRecord()
        await s.users.create(other)
        assert.equal(await s.apps.create(appRecord(other.id, { name: app.name })), true)
        const second = appRecord(user.id, { name: 'Second' })
        assert.equal(await s.apps.create(second), true)
        await assert.rejects(s.apps.update(second.id, { name: app.name.toLowerCase() }, NOW), (error: Error) => {
          assert.ok(error instanceof AppNameTakenError)
          assert.equal(error.message, `the owner already has an app named ${app.name.toLowerCase()}`)
          assert.ok(error.cause, "the database's refusal kept as its cause")
          return true
        })
        assert.equal((await s.apps.findById(second.id))?.name, 'Second')
        assert.equal((await s.apps.update(second.id, { name: 'second' }, NOW))?.name, 'second', 'its own name in another case')
      })
    })

    test('names are compared in lower case, as the domain compares them: Straße and STRASSE are two names', async () => {
      await withApp(async (s, user) => {
        assert.equal(await s.apps.create(appRecord(user.id, { name: 'Straße' })), true)
        assert.equal(await s.apps.create(appRecord(user.id, { name: 'STRASSE' })), true)
        assert.equal(await s.apps.create(appRecord(user.id, { name: 'STRAßE' })), false)
      })
    })

    test('an update that fails for another reason is not told as a taken name', async () => {
      const { opened, app } = await openWithApp(open)
      await opened.close()
      await assert.rejects(opened.stores.apps.update(app.id, { name: 'Anything' }, NOW), (error) => !(error instanceof AppNameTakenError))
    })

    test('of 10 concurrent creates of one name by one owner exactly one succeeds', async () => {
      await withApp(async (s, user) => {
        const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => s.apps.create(appRecord(user.id, { name: i % 2 ? 'Racer' : 'RACER' }))))
        assert.equal(outcomes.filter(Boolean).length, 1)
      })
    })
  })

  describe(`${adapter} signature failures`, () => {
    const bounds = { keep: 5, maxAgeMs: HOUR }
    const failure = (atMs: number, overrides: Partial<SignatureFailure> = {}): SignatureFailure => ({
      atMs,
      method: 'POST',
      url: `https://api.example/oauth/request_token?n=${atMs}`,
      reason: 'bad_signature',
      baseString: `POST&https%3A%2F%2Fapi.example&n%3D${atMs}`,
      parameters: `header: oauth_consumer_key, oauth_signature; query: n`,
      ...overrides,
    })

    test('an app keeps its newest failures, newest first, each as written; other apps are apart', async () => {
      await withApp(async (s, user, app) => {
        const other = appRecord(user.id)
        await s.apps.create(other)
        for (let i = 0; i < 8; i++) await s.signatureFailures.record(app.id, failure(NOW + i), bounds)
        await s.signatureFailures.record(other.id, failure(NOW, { reason: 'nonce_reused', baseString: undefined, parameters: undefined }), bounds)
        const recent = await s.signatureFailures.recent(app.id, NOW + 10, bounds)
        assert.deepEqual(recent.map((f) => f.atMs), [NOW + 7, NOW + 6, NOW + 5, NOW + 4, NOW + 3])
        assert.deepEqual(recent[0], failure(NOW + 7))
        assert.deepEqual(await s.signatureFailures.recent(other.id, NOW + 10, bounds), [{ atMs: NOW, method: 'POST', url: `https://api.example/oauth/request_token?n=${NOW}`, reason: 'nonce_reused' }])
      })
    })

    test('the store holds no more than the bound per app (older rows are deleted, not only hidden)', async () => {
      await withApp(async (s, _user, app) => {
        for (let i = 0; i < 12; i++) await s.signatureFailures.record(app.id, failure(NOW + i), bounds)
        const wide = { keep: 1000, maxAgeMs: 10 * HOUR }
        assert.equal((await s.signatureFailures.recent(app.id, NOW + 20, wide)).length, bounds.keep)
      })
    })

    test('writes at the same moment hold the bound exactly: no more rows than it, whatever the backend', async () => {
      await withApp(async (s, _user, app) => {
        await Promise.all(Array.from({ length: 20 }, (_, i) => s.signatureFailures.record(app.id, failure(NOW + i), bounds)))
        const wide = { keep: 1000, maxAgeMs: 10 * HOUR }
        assert.equal((await s.signatureFailures.recent(app.id, NOW + 30, wide)).length, bounds.keep)
      })
    })

    test('a failure older than the bound is not shown, and is deleted by the next write', async () => {
      await withApp(async (s, _user, app) => {
        await s.signatureFailures.record(app.id, failure(NOW), bounds)
        assert.equal((await s.signatureFailures.recent(app.id, NOW + HOUR - 1, bounds)).length, 1)
        assert.equal((await s.signatureFailures.recent(app.id, NOW + HOUR, bounds)).length, 0)
        await s.signatureFailures.record(app.id, failure(NOW + HOUR + 1), bounds)
        const wide = { keep: 1000, maxAgeMs: 10 * HOUR }
        assert.deepEqual((await s.signatureFailures.recent(app.id, NOW + HOUR + 2, wide)).map((f) => f.atMs), [NOW + HOUR + 1])
      })
    })

    test("deleting an app deletes its failures", async () => {
      await withApp(async (s, user, app) => {
        await s.signatureFailures.record(app.id, failure(NOW), bounds)
        assert.equal(await s.apps.delete(app.id), true)
        const again = appRecord(user.id, { id: app.id })
        assert.equal(await s.apps.create(again), true)
        assert.deepEqual(await s.signatureFailures.recent(app.id, NOW + 1, bounds), [])
      })
    })
  })
}
