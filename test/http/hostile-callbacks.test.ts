import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AppRecord } from '../../src/storage/records.ts'
import { consentInBrowser } from '../helpers/consent-pages.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { signedFetch } from '../helpers/oauth1-client.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

// Callback handling cannot be turned into an open redirect, a header injection or a script injection.
describe('hostile callbacks', () => {
  let server: TestServer
  let app: AppRecord
  before(async () => {
    server = await startTestServer()
    app = await makeApp(server.domain, { callbackUrls: ['https://client.example/callback'] })
  })
  after(() => server.close())

  const requestToken = (callback: string) =>
    signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: callback } })

  test('callbacks that would lead elsewhere are refused with 403 code 415', async () => {
    const hostile = [
      'https://client.example@evil.example/callback',
      'https://client.example.evil.example/callback',
      'https://evil.example/callback?x=https://client.example/callback',
      'https://client.example/callback/../../evil',
      'https://client.example/callbackX',
      '//evil.example/callback',
      '/callback',
      'javascript:alert(document.cookie)//https://client.example/callback',
      'data:text/html,<script>alert(1)</script>',
      'https://client.example/callback#@evil.example',
      'https://client.example/callback\r\nSet-Cookie: owned=1',
      'https://client.example/callback\nLocation: https://evil.example',
      'https://user:pass@client.example/callback',
    ]
    for (const callback of hostile) {
      await assertRefusedOnlyWhenBroken((variant) => requestToken(variant === 'broken' ? callback : 'https://client.example/callback'), { status: 403, code: 415 })
    }
  })

  test('the same URL written differently is the registered one (host case, default port)', async () => {
    for (const callback of ['https://CLIENT.example/callback', 'https://client.example:443/callback']) {
      assert.equal((await requestToken(callback)).status, 200, callback)
    }
  })

  test("the redirect after approval goes to the app's host only, with the app's own query intact and nothing injected", async () => {
    const { user, password } = await makeUser(server.domain)
    const tricky = 'https://client.example/callback?next=%0D%0ASet-Cookie%3A%20x%3D1&to=https%3A%2F%2Fevil.example'
    const issued = await requestToken(tricky)
    assert.equal(issued.status, 200)
    const outcome = await consentInBrowser(`${server.url}/oauth/authorize?oauth_token=${issued.form.oauth_token}`, { username: user.screenName, password })
    assert.equal(outcome.kind, 'redirect')
    if (outcome.kind !== 'redirect') return
    const location = new URL(outcome.location)
    assert.equal(location.origin, 'https://client.example')
    assert.equal(location.pathname, '/callback')
    assert.equal(location.searchParams.get('next'), '\r\nSet-Cookie: x=1', 'kept as data of the query, never as a header')
    assert.equal(location.searchParams.get('to'), 'https://evil.example')
    assert.doesNotMatch(outcome.location, /[\r\n]/)
    assert.equal(location.searchParams.get('oauth_token'), issued.form.oauth_token)
  })
})
