import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { errorCode, signRequest } from '../helpers/oauth1-client.ts'
import { deleteBehindStores, injectedTestServer, type TestServer } from '../helpers/test-app.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'

// service-spec §4.5 (invalidate_token) and GET /1.1/account/verify_credentials.json.
describe('invalidate_token and verify_credentials', () => {
  let server: TestServer
  let app: AppRecord

  before(async () => {
    server = await injectedTestServer()
    const owner = (await makeUser(server.domain, { name: 'Grace Hopper' })).user
    app = await makeApp(server.domain, { owner, accessLevel: 'read-write-directmessages' })
  })
  after(() => server.close())

  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const freshToken = async () => {
    const { token } = await issueOwnerToken(server.domain, app.id)
    return { key: token.token, secret: token.secret }
  }
  const verify = (token: { key: string; secret: string }) =>
    server.signedFetch({ consumer: consumer(), token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })

  test('verify_credentials returns the person with a numeric id and the token level in x-access-level', async () => {
    const token = await freshToken()
    const answer = await verify(token)
    assert.equal(answer.status, 200)
    assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.equal(answer.headers.get('x-access-level'), 'read-write-directmessages')
    const owner = await server.domain.stores.users.findById(app.ownerId)
    assert.deepEqual(answer.json, { id: Number(owner!.id), id_str: owner!.id, screen_name: owner!.screenName, name: 'Grace Hopper' })
    assert.match(answer.text, /"id":\d+,/, 'id is a JSON number')
  })

  for (const path of ['/1.1/oauth/invalidate_token', '/1.1/oauth/invalidate_token.json', '/oauth/invalidate_token', '/oauth/invalidate_token.json']) {
    test(`POST ${path} invalidates the signing token; every later use gets 401 code 89`, async () => {
      const token = await freshToken()
      const answer = await server.signedFetch({ consumer: consumer(), token, url: `${server.url}${path}` })
      assert.equal(answer.status, 200)
      assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8')
      assert.deepEqual(answer.json, { access_token: token.key })
      const after = await verify(token)
      assert.equal(after.status, 401)
      assert.deepEqual(after.json, { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
      const again = await server.signedFetch({ consumer: consumer(), token, url: `${server.url}${path}` })
      assert.equal(errorCode(again), 89)
    })
  }

  test('a read-only token can invalidate itself', async () => {
    const readApp = await makeApp(server.domain, { accessLevel: 'read' })
    const { token } = await issueOwnerToken(server.domain, readApp.id)
    const answer = await server.signedFetch({
      consumer: { key: readApp.consumerKey, secret: readApp.consumerSecret },
      token: { key: token.token, secret: token.secret },
      url: `${server.url}/1.1/oauth/invalidate_token.json`,
    })
    assert.equal(answer.status, 200)
  })

  test('an app-only bearer token on verify_credentials gets 403 code 220; the app signing for its owner gets 200', async () => {
    const answer = await server.send({ method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, headers: { authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAsomething%3Dtail' } })
    assert.equal(answer.status, 403)
    assert.deepEqual(answer.json, { errors: [{ code: 220, message: 'Your credentials do not allow access to this resource.' }] })
    // A real bearer token of the app, in place of the owner's signature, is refused the same way.
    const basic = `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`
    const issued = await server.send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
    const bearer = issued.json.access_token as string
    const token = await freshToken()
    await assertRefusedOnlyWhenBroken(
      (variant) =>
        variant === 'broken' ? server.send({ method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json`, headers: { authorization: `Bearer ${bearer}` } }) : verify(token),
      { status: 403, code: 220 },
    )
  })

  test('verify_credentials without a token gets 401 code 89, and with no credentials 400 code 215', async () => {
    const token = await freshToken()
    await assertRefusedOnlyWhenBroken(
      (variant) => server.signedFetch({ consumer: consumer(), ...(variant === 'broken' ? {} : { token }), method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` }),
      { status: 401, code: 89 },
    )
    const none = await server.send({ method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
    assert.equal(none.status, 400)
    assert.deepEqual(none.json, { errors: [{ code: 215, message: 'Bad Authentication data.' }] })
  })

  test('a token whose owner no longer exists gets 401 code 89, even with a wrong signature, and spends no nonce', async () => {
    const orphaned = await makeApp(server.domain)
    const owner = (await server.domain.stores.users.findById(orphaned.ownerId))!
    const { token } = await issueOwnerToken(server.domain, orphaned.id)
    const consumer = { key: orphaned.consumerKey, secret: orphaned.consumerSecret }
    const signed = signRequest({ consumer, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
    const appRoute = signRequest({ consumer, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${server.url}/1.1/application/rate_limit_status.json` })
    await deleteBehindStores(server.dbPath, 'users', owner.id)

    assert.deepEqual((await server.send(signed)).json, { errors: [{ code: 89, message: 'Invalid or expired token.' }] })
    assert.equal(errorCode(await server.send(appRoute)), 89, 'an API route that takes user or app context')
    const wrongSignature = signRequest({ consumer: { ...consumer, secret: 'wrong' }, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })
    assert.equal(errorCode(await server.send(wrongSignature)), 89, '89 comes before 32')

    // The owner back (same id): the very same requests pass, so the refusals spent no nonce.
    assert.equal(await server.domain.stores.users.create(owner), true)
    assert.equal((await server.send(signed)).status, 200)
    assert.equal((await server.send(appRoute)).status, 200)
  })

  test("a token used with another app's consumer key gets 401 code 89 (C41)", async () => {
    const token = await freshToken()
    const other = await makeApp(server.domain)
    await assertRefusedOnlyWhenBroken(
      (variant) =>
        server.signedFetch({ consumer: variant === 'broken' ? { key: other.consumerKey, secret: other.consumerSecret } : consumer(), token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` }),
      { status: 401, code: 89 },
    )
  })

  test('rotating the app keys kills its access tokens, and the old consumer key stops working', async () => {
    const rotating = await makeApp(server.domain)
    const { token } = await issueOwnerToken(server.domain, rotating.id)
    const { rotateAppKeys } = await import('../../src/domain/registry/apps.ts')
    const rotated = await rotateAppKeys(server.domain, rotating.id)
    const withNewKeys = await server.signedFetch({
      consumer: { key: rotated.consumerKey, secret: rotated.consumerSecret },
      token: { key: token.token, secret: token.secret },
      method: 'GET',
      url: `${server.url}/1.1/account/verify_credentials.json`,
    })
    assert.equal(errorCode(withNewKeys), 89)
    const withOldKeys = await server.signedFetch({ consumer: { key: rotating.consumerKey, secret: rotating.consumerSecret }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    assert.equal(errorCode(withOldKeys), 32)
  })
})
