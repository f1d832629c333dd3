import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { NOW, userRecord, appRecord, accessTokenRecord, bearerTokenRecord, type ContractKit } from './fixtures.ts'

/** The storage contract's part on the joined credential lookups (src/storage/types.ts). */
export function credentialLookupsContract({ withApp }: ContractKit): void {
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
}
