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

  const introspect = (token: string, caller: AppRecord = resourceServer, hint?: string) =>
    server.send({
      method: 'POST',
      url: `${server.url}/oauth2/introspect`,
      headers: { authorization: basic(caller), 'content-type': FORM },
      body: `token=${encodeURIComponent(token)}${hint === undefined ? '' : `&token_type_hint=${hint}`}`,
    })
  const bearerOf = async (app: AppRecord) =>
    (await server.send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: basic(app), 'content-type': FORM }, body: 'grant_type=client_credentials' })).json.access_token as string

  test('an active bearer token: type, client, app and scope', async () => {
    const token = await bearerOf(client)
    const answer = await introspect(token)
    assert.equal(answer.status, 200)
    assert.deepEqual(answer.json, { active: true, token_type: 'bearer', client_id: client.consumerKey, app_id: client.id, scope: 'read' })
  })

  test('an OAuth 1.0a access token is active only when asked about as one (token_type_hint=oauth1_access_token), with its own token type and the user', async () => {
    const { token, owner } = await issueOwnerToken(server.domain, client.id)
    assert.deepEqual((await introspect(token.token)).json, { active: false }, 'not a bearer credential')
    const answer = await introspect(token.token, resourceServer, 'oauth1_access_token')
    assert.deepEqual(answer.json, {
      active: true,
      token_type: 'urn:latchkey:token-type:oauth1-access-token',
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
      for (const hint of [undefined, 'oauth1_access_token']) {
        const answer = await introspect(value, resourceServer, hint)
        assert.equal(answer.status, 200)
        assert.deepEqual(answer.json, { active: false }, `${value} ${hint}`)
      }
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
