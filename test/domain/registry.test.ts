import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { verifyPassword } from '../../src/domain/passwords.ts'
import { createApp, deleteApp, findApp, rotateAppKeys, updateApp, type AppSettings } from '../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { createUser } from '../../src/domain/registry/users.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { AppNameTakenError } from '../../src/storage/errors.ts'
import type { AppRecord, AuditEventName, UserRecord } from '../../src/storage/records.ts'
import { appIfKeyWorks } from '../../src/domain/key-grace.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, testClock, type TestDomain } from '../helpers/test-domain.ts'

let t: TestDomain
// A clock the grace-period tests move; it starts at the real time of its first reading.
const clock = testClock()
before(async () => {
  t = await openTestDomain({ clock })
})
after(() => t.close())

/** Asserts the promise fails with a 4xx ServiceError whose message matches. */
async function assertRefused(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`)
    assert.ok(error.status >= 400 && error.status < 500)
    assert.match(error.message, message)
    return true
  })
}

/** Asserts the promise fails with exactly this status, code, message and field (400 code 1003 unless told). */
async function assertRefusedAs(
  promise: Promise<unknown>,
  expected: { message: string; field?: string; status?: number; code?: number },
): Promise<ServiceError> {
  let caught: ServiceError | undefined
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${String(error)}`)
    caught = error
    return true
  })
  const { status = 400, code = 1003, message, field } = expected
  assert.deepEqual({ status: caught!.status, code: caught!.code, message: caught!.message, field: caught!.field }, { status, code, message, field })
  return caught!
}

/** The audit rows of this event about this app (or user), newest first. */
async function auditRows(event: AuditEventName, about: { appId?: string; userId?: string }) {
  return (await t.domain.stores.audit.list({ ...about, limit: 100 })).filter((row) => row.event === event)
}

describe('createUser', () => {
  test('accepts 1 to 15 letters, digits and underscores', async () => {
    for (const screenName of ['a', 'Z9_', 'abcdefghij_1234']) {
      const user = await createUser(t.domain, { screenName, password: 'long enough password' })
      assert.equal(user.screenName, screenName)
    }
  })

  test('refuses other screen names', async () => {
    for (const screenName of ['', 'abcdefghij_12345', 'has-dash', 'has space', 'émile', 'dot.name']) {
      await assertRefused(createUser(t.domain, { screenName, password: 'long enough password' }), /screen name/)
    }
  })

  test('refuses a screen name taken in another case', async () => {
    await createUser(t.domain, { screenName: 'CaseTwin', password: 'long enough password' })
    await assertRefused(createUser(t.domain, { screenName: 'casetwin', password: 'long enough password' }), /already taken/)
  })

  test('refuses a password shorter than 8 characters', async () => {
    await assertRefused(createUser(t.domain, { screenName: 'shortpw', password: 'short' }), /password/)
  })

  test('gives digit ids that increase and stay below 2^53', async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await makeUser(t.domain)).user.id)
    for (const id of ids) {
      assert.match(id, /^\d+$/)
      assert.ok(BigInt(id) < 2n ** 53n)
    }
    assert.ok(BigInt(ids[0]!) < BigInt(ids[1]!) && BigInt(ids[1]!) < BigInt(ids[2]!))
  })

  test('never stores the password in clear, and the stored hash verifies it', async () => {
    const password = 'Tr0ub4dor&3-correct-horse'
    const user = await createUser(t.domain, { screenName: 'hashed', password })
    const stored = await t.domain.stores.users.findById(user.id)
    assert.ok(stored)
    assert.ok(!stored.passwordHash.includes(password))
    assert.ok(!JSON.stringify(stored).includes(password))
    assert.equal(await verifyPassword(password, stored.passwordHash), true)
    assert.equal(await verifyPassword('Tr0ub4dor&3-correct-hors', stored.passwordHash), false)
  })

  test('uses the screen name as the display name when none is given', async () => {
    const user = await createUser(t.domain, { screenName: 'noname', password: 'long enough password' })
    assert.equal(user.name, 'noname')
  })
})

describe('createApp', () => {
  test('refuses an owner that does not exist', async () => {
    await assertRefused(createApp(t.domain, { name: 'Orphan', owner: 'nobody_at_all' }), /nobody_at_all/)
  })

  test('finds the owner without regard to case', async () => {
    const { user } = await makeUser(t.domain, { screenName: 'OwnerCase' })
    const app = await createApp(t.domain, { name: 'Mine', owner: 'ownercase' })
    assert.equal(app.ownerId, user.id)
  })

  test('gives the one set of defaults (read access, as on X) and fresh credentials', async () => {
    const { user } = await makeUser(t.domain)
    const app = await createApp(t.domain, { name: 'Defaults', owner: user.screenName })
    assert.equal(app.accessLevel, 'read')
    assert.equal(app.isSignInEnabled, false)
    assert.equal(app.type, 'web')
    assert.deepEqual(app.signatureMethods, ['HMAC-SHA1'])
    assert.equal(app.isSuspended, false)
    assert.deepEqual(app.callbackUrls, [])
    assert.match(app.consumerKey, /^[A-Za-z0-9]{20,}$/)
    assert.match(app.consumerSecret, /^[A-Za-z0-9]{40,}$/)
    assert.match(app.id, /^\d+$/)
    assert.deepEqual(await t.domain.stores.apps.findById(app.id), app)
  })

  test('accepts http, https and an app\'s own scheme as callbacks', async () => {
    const callbackUrls = ['https://client.example/cb?source=latchkey', 'http://127.0.0.1:3000/callback', 'myapp://cb']
    const app = await makeApp(t.domain, { callbackUrls })
    assert.deepEqual(app.callbackUrls, callbackUrls)
  })

  test('refuses callbacks that could run script, carry a fragment or are not absolute URLs', async () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,hi', 'https://client.example/cb#x', '/relative/cb', 'not a url']) {
      await assertRefused(makeApp(t.domain, { callbackUrls: [url] }), /callback URL/)
    }
  })

  test('refuses an unknown access level, app type or signature method', async () => {
    await assertRefused(makeApp(t.domain, { accessLevel: 'admin' }), /access level/)
    await assertRefused(makeApp(t.domain, { type: 'mobile' }), /app type/)
    await assertRefused(makeApp(t.domain, { signatureMethods: ['RSA-SHA1'] }), /signature method/)
    await assertRefused(makeApp(t.domain, { signatureMethods: [] }), /signature method/)
  })

  test('accepts every valid access level, type and signature method', async () => {
    const app = await makeApp(t.domain, {
      accessLevel: 'read-write-directmessages',
      type: 'desktop',
      signatureMethods: ['hmac-sha256', 'PLAINTEXT'],
    })
    assert.equal(app.accessLevel, 'read-write-directmessages')
    assert.equal(app.type, 'desktop')
    assert.deepEqual(app.signatureMethods, ['HMAC-SHA256', 'PLAINTEXT'])
  })
})

describe('app names per owner', () => {
  /** Asserts the 409 of a taken name, naming the name and the field. */
  const assertNameTaken = (work: Promise<unknown>, name: string) =>
    assert.rejects(work, (error: unknown) => {
      assert.ok(error instanceof ServiceError, String(error))
      assert.deepEqual([error.status, error.code, error.message, error.field], [409, 1008, `the owner already has an app named ${name}`, 'name'])
      return true
    })

  test('an owner cannot register a second app of a name, in any case; another owner can', async () => {
    const { user } = await makeUser(t.domain)
    await makeApp(t.domain, { owner: user, name: 'Another' })
    await makeApp(t.domain, { owner: user, name: 'Weather Desk' })
    await assertNameTaken(makeApp(t.domain, { owner: user, name: 'weather desk' }), 'weather desk')
    assert.equal((await makeApp(t.domain, { owner: user, name: 'Weather Desk 2' })).name, 'Weather Desk 2')
    assert.equal((await makeApp(t.domain, { name: 'Weather Desk' })).name, 'Weather Desk')
  })

  test('an owner cannot rename an app to the name of another of theirs (409, the store refusal as cause); to its own name, yes', async () => {
    const { user } = await makeUser(t.domain)
    await makeApp(t.domain, { owner: user, name: 'First' })
    const second = await makeApp(t.domain, { owner: user, name: 'Second' })
    await assert.rejects(updateApp(t.domain, second.id, { name: ' FIRST ' }), (error: unknown) => {
      assert.ok(error instanceof ServiceError && error.status === 409)
      assert.equal(error.message, 'the owner already has an app named FIRST')
      assert.equal(error.field, 'name')
      assert.ok(error.cause instanceof Error)
      return true
    })
    assert.equal((await findApp(t.domain, second.id)).name, 'Second')
    assert.equal((await updateApp(t.domain, second.id, { name: 'SECOND' })).name, 'SECOND')
  })

  test('an id already taken is drawn again, up to three times, even when another owner has the same name', async () => {
    const taken = await makeApp(t.domain, { name: 'Shared Name' })
    const { user } = await makeUser(t.domain)
    const fresh = t.domain.newId()
    const ids = [taken.id, taken.id, fresh]
    const deps = { ...t.domain, newId: () => ids.shift() ?? taken.id }
    const app = await createApp(deps, { name: 'Shared Name', owner: user.id })
    assert.deepEqual([app.id, app.ownerId], [fresh, user.id])
    // One audit row, of the create that succeeded; the refused attempts wrote none.
    const audit = await t.domain.stores.audit.list({ userId: user.id, limit: 10 })
    assert.deepEqual(
      audit.filter((e) => e.event === 'app.created').map((e) => [e.appId, e.detail]),
      [[fresh, { name: 'Shared Name', type: 'web' }]],
    )
    await assert.rejects(createApp(deps, { name: 'Unlucky', owner: user.id }), /createApp: could not find a free app id/)
  })

  test("an id taken by one of the owner's own apps is drawn again; only the name decides a 409", async () => {
    const { user } = await makeUser(t.domain)
    const own = await makeApp(t.domain, { owner: user, name: 'First Of Mine' })
    const fresh = t.domain.newId()
    const ids = [own.id, fresh]
    const deps = { ...t.domain, newId: () => ids.shift() ?? own.id }
    const app = await createApp(deps, { name: 'Second Of Mine', owner: user.id })
    assert.deepEqual([app.id, app.name], [fresh, 'Second Of Mine'])
  })
})

describe('apps after registration', () => {
  test('are found by id and by consumer key, and not by anything else', async () => {
    const app = await makeApp(t.domain)
    assert.equal((await findApp(t.domain, app.id)).id, app.id)
    assert.equal((await findApp(t.domain, app.consumerKey)).id, app.id)
    await assertRefused(findApp(t.domain, 'no-such-app'), /no-such-app/)
  })

  test('updateApp validates what it changes and keeps the rest', async () => {
    const app = await makeApp(t.domain)
    const updated = await updateApp(t.domain, app.id, { isSuspended: true, callbackUrls: ['myapp://cb'] })
    assert.equal(updated.isSuspended, true)
    assert.deepEqual(updated.callbackUrls, ['myapp://cb'])
    assert.equal(updated.consumerKey, app.consumerKey)
    await assertRefused(updateApp(t.domain, app.id, { callbackUrls: ['javascript:alert(1)'] }), /callback URL/)
  })

  test('deleteApp removes the app and its credentials', async () => {
    const app = await makeApp(t.domain)
    const { token } = await issueOwnerToken(t.domain, app.id)
    await deleteApp(t.domain, app.consumerKey)
    await assertRefused(findApp(t.domain, app.id), /no app/)
    assert.equal(await t.domain.stores.accessTokens.findByToken(token.token), undefined)
  })
})

describe('owner token and key rotation', () => {
  test('the owner token is the same on repeat and belongs to the owner', async () => {
    const { user } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { owner: user, accessLevel: 'read' })
    const first = await issueOwnerToken(t.domain, app.id)
    const second = await issueOwnerToken(t.domain, app.consumerKey)
    assert.equal(second.token.token, first.token.token)
    assert.equal(second.token.secret, first.token.secret)
    assert.equal(first.owner.id, user.id)
    assert.equal(first.token.accessLevel, 'read')
    assert.ok(first.token.token.startsWith(`${user.id}-`))
  })

  test('rotateAppKeys gives a new key pair and revokes the credentials issued under the old one', async () => {
    const app = await makeApp(t.domain)
    const oldToken = await issueOwnerToken(t.domain, app.id)
    const rotated = await rotateAppKeys(t.domain, app.consumerKey)

    assert.notEqual(rotated.consumerKey, app.consumerKey)
    assert.notEqual(rotated.consumerSecret, app.consumerSecret)
    await assertRefused(findApp(t.domain, app.consumerKey), /no app/)
    assert.notEqual((await t.domain.stores.accessTokens.findByToken(oldToken.token.token))?.revokedAtMs, null)

    const newToken = await issueOwnerToken(t.domain, rotated.consumerKey)
    assert.notEqual(newToken.token.token, oldToken.token.token)
  })

  test('rotateAppKeys of an unknown app is refused', async () => {
    await assertRefused(rotateAppKeys(t.domain, 'unknown-key'), /unknown-key/)
  })
})

/** An app of one shared owner under a fresh name: the refusals below cost no new user each. */
let sharedOwner: UserRecord | undefined
let appCount = 0
async function ownedApp(settings: AppSettings = {}): Promise<AppRecord> {
  sharedOwner ??= (await makeUser(t.domain)).user
  appCount += 1
  return makeApp(t.domain, { owner: sharedOwner, name: `Owned App ${appCount}`, ...settings })
}

describe('createUser: each field\'s rule, and what is written', () => {
  const password = 'long enough password'

  test('a refused screen name names its field', async () => {
    await assertRefusedAs(createUser(t.domain, { screenName: 'has-dash', password }), {
      message: 'screen name must be 1 to 15 letters, digits or underscores',
      field: 'screenName',
    })
  })

  test('a taken screen name is 409 code 1008 on the screenName field', async () => {
    await createUser(t.domain, { screenName: 'TakenOnce', password })
    await assertRefusedAs(createUser(t.domain, { screenName: 'takenonce', password }), {
      status: 409,
      code: 1008,
      message: 'screen name takenonce is already taken',
      field: 'screenName',
    })
  })

  test('passwords of 8 and 1024 characters are accepted, 7 and 1025 refused', async () => {
    await createUser(t.domain, { screenName: 'pw8', password: 'p'.repeat(8) })
    await createUser(t.domain, { screenName: 'pw1024', password: 'p'.repeat(1024) })
    for (const refused of ['p'.repeat(7), 'p'.repeat(1025)]) {
      await assertRefusedAs(createUser(t.domain, { screenName: 'pwrefused', password: refused }), {
        message: 'password must be 8 to 1024 characters',
        field: 'password',
      })
    }
  })

  test('the display name is trimmed; 1 and 50 characters are accepted, blank and 51 refused', async () => {
    assert.equal((await createUser(t.domain, { screenName: 'padded', password, name: '  Ada L.  ' })).name, 'Ada L.')
    assert.equal((await createUser(t.domain, { screenName: 'name1', password, name: 'A' })).name, 'A')
    assert.equal((await createUser(t.domain, { screenName: 'name50', password, name: 'n'.repeat(50) })).name, 'n'.repeat(50))
    for (const name of ['   ', 'n'.repeat(51)]) {
      await assertRefusedAs(createUser(t.domain, { screenName: 'namerefused', password, name }), {
        message: 'name must be 1 to 50 characters',
        field: 'name',
      })
    }
  })

  test('records user.created with the screen name', async () => {
    const user = await createUser(t.domain, { screenName: 'Audited', password })
    const rows = await auditRows('user.created', { userId: user.id })
    assert.deepEqual(
      rows.map((row) => ({ appId: row.appId, detail: row.detail })),
      [{ appId: null, detail: { screen_name: 'Audited' } }],
    )
  })

  test('gives up after three ids that are all taken, writing nothing', async () => {
    const { user: holder } = await makeUser(t.domain)
    let drawn = 0
    const takenIds = { ...t.domain, newId: () => (drawn++, holder.id) }
    await assert.rejects(createUser(takenIds, { screenName: 'noFreeId', password }), { message: 'createUser: could not find a free user id' })
    assert.equal(drawn, 3)
    assert.equal(await t.domain.stores.users.findByScreenName('noFreeId'), undefined)
    // The same call with ids of its own is accepted.
    assert.equal((await createUser(t.domain, { screenName: 'noFreeId', password })).screenName, 'noFreeId')
  })
})

describe('every bad field at once', () => {
  test('createApp names each bad setting, in the order of the form, and creates nothing', async () => {
    const owner = await makeUser(t.domain)
    const error = await assertRefusedAs(createApp(t.domain, { name: '  ', owner: owner.user.id, website: 'ftp://files.example', callbackUrls: ['/relative'], accessLevel: 'admin' }), {
      message: 'app name must be 1 to 64 characters; website must be an http:// or https:// URL; ' +
        'callback URL "/relative" must be an absolute URL without a fragment (http, https or an app\'s own scheme); access level must be one of read, read-write, read-write-directmessages',
      field: 'name',
    })
    assert.deepEqual(error.fields.map((f) => f.field), ['name', 'website', 'callbackUrls', 'accessLevel'])
    assert.equal((await t.domain.stores.listings.appsPage({ ownerId: owner.user.id, limit: 10 })).length, 0)
  })

  test('one bad setting is refused as it was: its own message and field', async () => {
    const owner = await makeUser(t.domain)
    const error = await assertRefusedAs(createApp(t.domain, { name: 'Fine', owner: owner.user.id, website: 'ftp://files.example' }), {
      message: 'website must be an http:// or https:// URL',
      field: 'website',
    })
    assert.deepEqual(error.fields, [{ field: 'website', message: 'website must be an http:// or https:// URL' }])
  })

  test('createUser names a bad screen name, name and password together, and registers nobody', async () => {
    const error = await assertRefusedAs(createUser(t.domain, { screenName: 'two words', name: '', password: 'short' }), {
      message: 'screen name must be 1 to 15 letters, digits or underscores; name must be 1 to 50 characters; password must be 8 to 1024 characters',
      field: 'screenName',
    })
    assert.deepEqual(error.fields.map((f) => f.field), ['screenName', 'name', 'password'])
  })
})

describe('createApp: each setting\'s rule, and what is stored', () => {
  test('the name is trimmed; 1 and 64 characters are accepted, blank and 65 refused', async () => {
    const { user: owner } = await makeUser(t.domain)
    assert.equal((await makeApp(t.domain, { owner, name: '  Padded  ' })).name, 'Padded')
    assert.equal((await makeApp(t.domain, { owner, name: 'A' })).name, 'A')
    assert.equal((await makeApp(t.domain, { owner, name: 'x'.repeat(64) })).name, 'x'.repeat(64))
    for (const name of ['', '   ', 'x'.repeat(65)]) {
      await assertRefusedAs(makeApp(t.domain, { owner, name }), { message: 'app name must be 1 to 64 characters', field: 'name' })
    }
  })

  test('a description of up to 500 characters is kept; 501 is refused', async () => {
    const app = await ownedApp({ description: 'd'.repeat(500) })
    assert.equal((await findApp(t.domain, app.id)).description, 'd'.repeat(500))
    await assertRefusedAs(ownedApp({ description: 'd'.repeat(501) }), {
      message: 'description must be at most 500 characters',
      field: 'description',
    })
  })

  test('the website is empty, or an http:// or https:// URL without spaces', async () => {
    for (const website of ['', 'http://a', 'https://client.example/about', 'HTTPS://CLIENT.EXAMPLE']) {
      assert.equal((await ownedApp({ website })).website, website)
    }
    for (const website of ['ftp://client.example', 'https://', 'https://a b', 'see https://client.example', 'client.example']) {
      await assertRefusedAs(ownedApp({ website }), { message: 'website must be an http:// or https:// URL', field: 'website' })
    }
  })

  test('at most 10 callback URLs', async () => {
    const urls = Array.from({ length: 11 }, (_, i) => `https://client.example/cb${i}`)
    assert.deepEqual((await ownedApp({ callbackUrls: urls.slice(0, 10) })).callbackUrls, urls.slice(0, 10))
    await assertRefusedAs(ownedApp({ callbackUrls: urls }), { message: 'at most 10 callback URLs', field: 'callbackUrls' })
  })

  test('a refused callback URL keeps its own message and names the callbackUrls field', async () => {
    const error = await assertRefusedAs(ownedApp({ callbackUrls: ['https://client.example/cb#x'] }), {
      message: 'callback URL "https://client.example/cb#x" must be an absolute URL without a fragment (http, https or an app\'s own scheme)',
      field: 'callbackUrls',
    })
    // The check's own error is kept as the cause, with the same words and no field of its own.
    assert.ok(error.cause instanceof ServiceError)
    assert.deepEqual({ message: error.cause.message, field: error.cause.field }, { message: error.message, field: undefined })
  })

  test('an unknown access level, type or signature method lists the allowed ones on its field', async () => {
    await assertRefusedAs(ownedApp({ accessLevel: 'admin' }), {
      message: 'access level must be one of read, read-write, read-write-directmessages',
      field: 'accessLevel',
    })
    await assertRefusedAs(ownedApp({ type: 'mobile' }), { message: 'app type must be one of web, desktop', field: 'type' })
    await assertRefusedAs(ownedApp({ signatureMethods: ['RSA-SHA1'] }), {
      message: 'signature method must be one of HMAC-SHA1, HMAC-SHA256, PLAINTEXT',
      field: 'signatureMethods',
    })
    await assertRefusedAs(ownedApp({ signatureMethods: [] }), { message: 'at least one signature method', field: 'signatureMethods' })
  })

  test('stores the flags given, and false for those not given', async () => {
    const plain = await ownedApp()
    assert.deepEqual(
      { description: plain.description, website: plain.website, signIn: plain.isSignInEnabled, resourceServer: plain.isResourceServer },
      { description: '', website: '', signIn: false, resourceServer: false },
    )
    const flagged = await ownedApp({ isSignInEnabled: true, isSuspended: true, isResourceServer: true })
    const stored = await t.domain.stores.apps.findById(flagged.id)
    assert.deepEqual(
      { signIn: stored?.isSignInEnabled, suspended: stored?.isSuspended, resourceServer: stored?.isResourceServer },
      { signIn: true, suspended: true, resourceServer: true },
    )
  })

  test('takes the owner by id too, and names a missing one on the owner field', async () => {
    const { user } = await makeUser(t.domain)
    assert.equal((await createApp(t.domain, { name: 'By Id', owner: user.id })).ownerId, user.id)
    await assertRefusedAs(createApp(t.domain, { name: 'By Id', owner: '999999' }), { message: 'no user with id or screen name 999999', field: 'owner' })
    await assertRefusedAs(createApp(t.domain, { name: 'By Name', owner: 'nobody_here' }), {
      message: 'no user with id or screen name nobody_here',
      field: 'owner',
    })
    assert.equal((await createApp(t.domain, { name: 'By At Name', owner: `@${user.screenName.toUpperCase()}` })).ownerId, user.id, 'a screen name in any case, with an @')
  })

  test('records app.created with the name and type', async () => {
    const app = await ownedApp({ name: 'Audited App', type: 'desktop' })
    const rows = await auditRows('app.created', { appId: app.id })
    assert.deepEqual(
      rows.map((row) => ({ userId: row.userId, detail: row.detail })),
      [{ userId: app.ownerId, detail: { name: 'Audited App', type: 'desktop' } }],
    )
  })

  test('a name the owner already uses, in any case, is 409 code 1008 on the name field', async () => {
    const { user: owner } = await makeUser(t.domain)
    await makeApp(t.domain, { owner, name: 'Twin' })
    const error = await assertRefusedAs(makeApp(t.domain, { owner, name: 'twin' }), {
      status: 409,
      code: 1008,
      message: 'the owner already has an app named twin',
      field: 'name',
    })
    assert.equal(error.cause, undefined)
    // Another owner may use it.
    assert.equal((await ownedApp({ name: 'twin' })).name, 'twin')
  })

  test('gives up after three ids that are all taken, writing nothing', async () => {
    const holder = await ownedApp()
    const { user: owner } = await makeUser(t.domain)
    let drawn = 0
    const takenIds = { ...t.domain, newId: () => (drawn++, holder.id) }
    await assert.rejects(createApp(takenIds, { name: 'No Free Id', owner: owner.id }), { message: 'createApp: could not find a free app id' })
    assert.equal(drawn, 3)
    assert.deepEqual(await auditRows('app.created', { userId: owner.id }), [])
    assert.equal((await createApp(t.domain, { name: 'No Free Id', owner: owner.id })).name, 'No Free Id')
  })
})

/** The domain as it is when another process deletes this app between the use case's lookup and its write. */
function deletedMeanwhile(appId: string): typeof t.domain {
  const { stores } = t.domain
  const transaction: typeof stores.transaction = async (work) => {
    await stores.apps.delete(appId)
    return stores.transaction(work)
  }
  return { ...t.domain, stores: { ...stores, transaction } }
}

describe('updateApp: what is stored and audited', () => {
  test('records app.updated with the fields changed, and the suspension when it is one of them', async () => {
    const app = await ownedApp()
    await updateApp(t.domain, app.id, { name: 'Renamed', isSignInEnabled: true, isResourceServer: true })
    await updateApp(t.domain, app.id, { isSuspended: true })
    await updateApp(t.domain, app.id, { isSuspended: false })
    const rows = await auditRows('app.updated', { appId: app.id })
    assert.deepEqual(
      rows.map((row) => ({ userId: row.userId, detail: row.detail })),
      [
        { userId: app.ownerId, detail: { fields: ['suspended'], suspended: false } },
        { userId: app.ownerId, detail: { fields: ['suspended'], suspended: true } },
        { userId: app.ownerId, detail: { fields: ['name', 'sign_in', 'resource_server'] } },
      ],
    )
    const stored = await findApp(t.domain, app.id)
    assert.deepEqual({ name: stored.name, signIn: stored.isSignInEnabled, resourceServer: stored.isResourceServer }, { name: 'Renamed', signIn: true, resourceServer: true })
  })

  test('a rename to a name the owner already uses is 409 code 1008, the store\'s refusal as its cause', async () => {
    const { user: owner } = await makeUser(t.domain)
    await makeApp(t.domain, { owner, name: 'Alpha' })
    const beta = await makeApp(t.domain, { owner, name: 'Beta' })
    const error = await assertRefusedAs(updateApp(t.domain, beta.id, { name: 'alpha' }), {
      status: 409,
      code: 1008,
      message: 'the owner already has an app named alpha',
      field: 'name',
    })
    assert.ok(error.cause instanceof AppNameTakenError)
    assert.equal((await findApp(t.domain, beta.id)).name, 'Beta')
    assert.equal((await updateApp(t.domain, beta.id, { name: 'Gamma' })).name, 'Gamma')
  })

  test('an app deleted meanwhile is 404 code 1004, with no audit row', async () => {
    const app = await ownedApp()
    await assertRefusedAs(updateApp(deletedMeanwhile(app.id), app.id, { name: 'Too Late' }), {
      status: 404,
      code: 1004,
      message: `no app with id or consumer key ${app.id}`,
    })
    assert.deepEqual(await auditRows('app.updated', { appId: app.id }), [])
  })
})

describe('rotateAppKeys: the grace period and the audit row', () => {
  test('the grace is a whole number of seconds from 1 to 7 days', async () => {
    const app = await ownedApp()
    for (const graceSeconds of [0, -1, 1.5, 604_801]) {
      await assertRefusedAs(rotateAppKeys(t.domain, app.id, { graceSeconds }), {
        message: 'grace must be a whole number of seconds from 1 to 604800 (7 days)',
        field: 'graceSeconds',
      })
    }
    for (const graceSeconds of [1, 604_800]) assert.ok(await rotateAppKeys(t.domain, app.id, { graceSeconds }))
  })

  test('during the grace the old pair finds its app with the old secret, until the last millisecond', async () => {
    const app = await ownedApp()
    const { token } = await issueOwnerToken(t.domain, app.id)
    const rotatedAtMs = clock.nowMs()
    const rotated = await rotateAppKeys(t.domain, app.id, { graceSeconds: 60 })
    assert.equal((await t.domain.stores.apps.findByConsumerKey(app.consumerKey))?.previousKeyExpiresAtMs, rotatedAtMs + 60_000)

    const old = await findApp(t.domain, app.consumerKey)
    assert.deepEqual({ id: old.id, key: old.consumerKey, secret: old.consumerSecret }, { id: app.id, key: app.consumerKey, secret: app.consumerSecret })
    assert.equal((await findApp(t.domain, rotated.consumerKey)).consumerSecret, rotated.consumerSecret)
    const withToken = await t.domain.stores.credentials.findConsumerWithAccessToken(app.consumerKey, token.token)
    assert.deepEqual(
      { app: withToken.app?.id, secret: withToken.app?.consumerSecret, token: withToken.token?.token, revoked: withToken.token?.revokedAtMs ?? null },
      { app: app.id, secret: app.consumerSecret, token: token.token, revoked: null },
    )

    clock.advance(59_999)
    assert.equal((await findApp(t.domain, app.consumerKey)).id, app.id)
    clock.advance(1)
    await assertRefusedAs(findApp(t.domain, app.consumerKey), { status: 404, code: 1004, message: `no app with id or consumer key ${app.consumerKey}` })
    assert.equal(appIfKeyWorks((await t.domain.stores.credentials.findConsumerWithAccessToken(app.consumerKey, token.token)).app, clock.nowMs()), undefined)
  })

  test('records app.keys_rotated with whether tokens were revoked and the grace; tokens are revoked by default without a grace, kept with one', async () => {
    const app = await ownedApp()
    await rotateAppKeys(t.domain, app.id)
    await rotateAppKeys(t.domain, app.id, { graceSeconds: 30 })
    const rows = await auditRows('app.keys_rotated', { appId: app.id })
    assert.deepEqual(
      rows.map((row) => ({ userId: row.userId, detail: row.detail })),
      [
        { userId: app.ownerId, detail: { revoke_tokens: false, grace_seconds: 30 } },
        { userId: app.ownerId, detail: { revoke_tokens: true } },
      ],
    )
  })

  test('an app deleted meanwhile is 404 code 1004, with no audit row', async () => {
    const app = await ownedApp()
    await assertRefusedAs(rotateAppKeys(deletedMeanwhile(app.id), app.id), {
      status: 404,
      code: 1004,
      message: `no app with id or consumer key ${app.id}`,
    })
    assert.deepEqual(await auditRows('app.keys_rotated', { appId: app.id }), [])
  })
})

describe('deleteApp and the owner token: audit rows and refusals', () => {
  test('deleteApp records app.deleted with the name, once', async () => {
    const app = await ownedApp({ name: 'Short Lived' })
    await deleteApp(t.domain, app.id)
    const rows = await auditRows('app.deleted', { appId: app.id })
    assert.deepEqual(
      rows.map((row) => ({ userId: row.userId, detail: row.detail })),
      [{ userId: app.ownerId, detail: { name: 'Short Lived' } }],
    )
  })

  test('a suspended app gets no owner token until the suspension is lifted', async () => {
    const app = await ownedApp({ isSuspended: true })
    await assertRefusedAs(issueOwnerToken(t.domain, app.id), {
      message: `app ${app.id} is suspended: lift the suspension first`,
    })
    await updateApp(t.domain, app.id, { isSuspended: false })
    assert.equal((await issueOwnerToken(t.domain, app.id)).app.id, app.id)
  })

  test('the owner token is audited as issued via owner_token', async () => {
    const app = await ownedApp({ accessLevel: 'read' })
    await issueOwnerToken(t.domain, app.id)
    await issueOwnerToken(t.domain, app.id)
    const rows = await auditRows('access_token.issued', { appId: app.id })
    assert.deepEqual(
      rows.map((row) => row.detail),
      [
        { access_level: 'read', via: 'owner_token', reused: true },
        { access_level: 'read', via: 'owner_token', reused: false },
      ],
    )
  })
})

describe('who lifts a suspension (issue 29, 5)', () => {
  test("an operator's suspension is lifted only by an operator; an owner's own by the owner too", async () => {
    const app = await ownedApp()
    const suspendedBy = async () => {
      const found = await findApp(t.domain, app.id)
      return found.isSuspended ? (found.suspendedBy ?? 'unknown') : 'not suspended'
    }
    await updateApp(t.domain, app.id, { isSuspended: true })
    assert.equal(await suspendedBy(), 'operator', 'the admin API and the CLI act as the operator')
    const refusal = { status: 400, code: 1003, field: 'isSuspended', message: 'an operator suspended this app: only an operator can lift the suspension' }
    await assertRefusedAs(updateApp(t.domain, app.id, { isSuspended: false }, { by: 'owner' }), refusal)
    // The owner suspending it again does not make it theirs.
    await updateApp(t.domain, app.id, { isSuspended: true }, { by: 'owner' })
    await assertRefusedAs(updateApp(t.domain, app.id, { isSuspended: false }, { by: 'owner' }), refusal)
    assert.equal(await suspendedBy(), 'operator')
    assert.equal((await updateApp(t.domain, app.id, { isSuspended: false })).isSuspended, false, 'the operator lifts it')

    // The twin: the owner's own suspension, lifted by the owner.
    await updateApp(t.domain, app.id, { isSuspended: true }, { by: 'owner' })
    assert.equal(await suspendedBy(), 'owner')
    const lifted = await updateApp(t.domain, app.id, { isSuspended: false }, { by: 'owner' })
    assert.deepEqual([lifted.isSuspended, lifted.suspendedBy], [false, undefined])
    assert.equal(await suspendedBy(), 'not suspended')
  })

  test('an app made suspended (admin API, CLI) is suspended by the operator', async () => {
    const app = await ownedApp({ isSuspended: true })
    assert.deepEqual([app.isSuspended, app.suspendedBy], [true, 'operator'])
    assert.equal((await findApp(t.domain, app.id)).suspendedBy, 'operator')
  })
})
