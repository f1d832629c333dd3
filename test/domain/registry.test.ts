import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { verifyPassword } from '../../src/domain/passwords.ts'
import { createApp, deleteApp, findApp, rotateAppKeys, updateApp } from '../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { createUser } from '../../src/domain/registry/users.ts'
import { ServiceError } from '../../src/errors/service-error.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-domain.ts'

let t: TestDomain
before(async () => {
  t = await openTestDomain()
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
    await assertRefused(createApp(t.domain, { name: 'Orphan', ownerScreenName: 'nobody_at_all' }), /nobody_at_all/)
  })

  test('finds the owner without regard to case', async () => {
    const { user } = await makeUser(t.domain, { screenName: 'OwnerCase' })
    const app = await createApp(t.domain, { name: 'Mine', ownerScreenName: 'ownercase' })
    assert.equal(app.ownerId, user.id)
  })

  test('gives sensible defaults and fresh credentials', async () => {
    const { user } = await makeUser(t.domain)
    const app = await createApp(t.domain, { name: 'Defaults', ownerScreenName: user.screenName })
    assert.equal(app.accessLevel, 'read-write')
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
    const app = await createApp(deps, { name: 'Shared Name', ownerId: user.id })
    assert.deepEqual([app.id, app.ownerId], [fresh, user.id])
    // One audit row, of the create that succeeded; the refused attempts wrote none.
    const audit = await t.domain.stores.audit.list({ userId: user.id, limit: 10 })
    assert.deepEqual(
      audit.filter((e) => e.event === 'app.created').map((e) => [e.appId, e.detail]),
      [[fresh, { name: 'Shared Name', type: 'web' }]],
    )
    await assert.rejects(createApp(deps, { name: 'Unlucky', ownerId: user.id }), /createApp: could not find a free app id/)
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
