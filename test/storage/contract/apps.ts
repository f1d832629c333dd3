import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AppNameTakenError } from '../../../src/storage/errors.ts'
import { NOW, unique, userRecord, appRecord, requestTokenRecord, accessTokenRecord, bearerTokenRecord, openWithApp, type ContractKit } from './fixtures.ts'

/** The storage contract's part on apps, and their names' uniqueness (src/storage/types.ts). */
export function appsContract({ withStores, withApp, authorizedToken, redeem, adapter, open }: ContractKit): void {
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
}
