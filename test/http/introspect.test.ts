import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp } from '../helpers/fixtures.ts'

import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'
import { injectedTestServer, type TestServer } from '../helpers/test-app.ts'

const basic = (app: AppRecord) => `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`
const FORM = 'application/x-www-form-urlencoded'

// RFC 7662 token introspection for resource servers that do not share Latchkey's storage.
describe('POST /oauth2/introspect', () => {
  let server: TestServer
  let resourceServer: AppRecord
  let client: AppRecord

  before(async () => {
    server = await injectedTestServer()
    resourceServer = await makeApp(server.domain, { isResourceServer: true })
    client = await makeApp(server.domain, { accessLevel: 'read' })
  })
  after(() => server.close())

  const introspect = (token: string, caller: AppRecord = resourceServer) =>
    server.send({ method: 'POST', url: `${server.url}/oauth2/introspect`, headers: { authorization: basic(caller), 'content-type': FORM }, body: `token=${encodeURIComponent(token)}` })
  const bearerOf = async (app: AppRecord) =>
    (await server.send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: basic(app), 'content-type': FORM }, body: 'grant_type=client_credentials' })).json.access_token as string

  test('an active bearer token: type, client, app and scope', async () => {
    const token = await bearerOf(client)
    const answer = await introspect(token)
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.json, { active: true, token_type: 'bearer', client_id: client.consumerKey, app_id: client.id, scope: 'read' })
  })

  test('an active access token: also the user', async () => {
    const { token, owner } = await issueOwnerToken(server.domain, client.id)
    const answer = await introspect(token.token)
    assert.deepEqual(answer.json, {
      active: true,
      token_type: 'access_token',
      client_id: client.consumerKey,
      app_id: client.id,
      scope: 'read',
      user_id: owner.id,
      username: owner.screenName,
    })
  })

  test('invalidated tokens of both kinds and unknown tokens are {"active": false} and nothing more', async () => {
    const bearer = await bearerOf(client)
    await server.send({ method: 'POST', url: `${server.url}/oauth2/invalidate_token`, headers: { authorization: basic(client), 'content-type': FORM }, body: `access_token=${encodeURIComponent(bearer)}` })
    const { token } = await issueOwnerToken(server.domain, client.id)
    await server.signedFetch({ consumer: { key: client.consumerKey, secret: client.consumerSecret }, token: { key: token.token, secret: token.secret }, url: `${server.url}/1.1/oauth/invalidate_token.json` })
    for (const value of [bearer, token.token, 'AAAAAAAAAAAAAAAAAAAAAunknown%3Dx', '123-unknown', '']) {
      const answer = await introspect(value)
      assert.equal(answer.status, 200)
      assert.deepEqual(answer.json, { active: false }, value)
    }
  })

  test('an app that is not a registered resource server, or wrong credentials, gets 403 code 99', async () => {
    const token = await bearerOf(client)
    for (const caller of [client, { ...resourceServer, consumerSecret: 'wrong' }]) {
      await assertRefusedOnlyWhenBroken((variant) => introspect(token, variant === 'broken' ? caller : resourceServer), { status: 403, code: 99 })
    }
  })

  test('the token to introspect travels in the body: in the URL it is refused with 403 code 99 and never looked at', async () => {
    const token = await bearerOf(client)
    const inUrl = () => server.send({ method: 'POST', url: `${server.url}/oauth2/introspect?token=${encodeURIComponent(token)}`, headers: { authorization: basic(resourceServer), 'content-type': FORM }, body: '' })
    await assertRefusedOnlyWhenBroken((variant) => (variant === 'broken' ? inUrl() : introspect(token)), { status: 403, code: 99 })
    assert.equal((await introspect(token)).json.active, true)
  })
})
