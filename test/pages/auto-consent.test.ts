// --auto-consent (AppDeps' http.autoConsent): the authorize pages approve at once as that person,
// by the pages' rules: what a page refuses it still refuses, and the trail names the person.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { updateUser } from '../../src/domain/admin/people.ts'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { authorizeParameters, newVerifier, oauth2Client, REDIRECT } from '../helpers/oauth2-user.ts'
import { buildTestApp, type TestApp } from '../helpers/test-app.ts'
import { makeRequestToken } from '../helpers/consent-pages.ts'

describe('--auto-consent on the authorize pages', () => {
  let t: TestApp
  let person: UserRecord
  let app: AppRecord
  before(async () => {
    t = await buildTestApp({ http: { autoConsent: 'auto_tess' } })
    person = (await makeUser(t.domain, { screenName: 'auto_tess' })).user
    app = await makeApp(t.domain)
  })
  after(() => t.close())

  const get = (url: string) => t.app.inject({ method: 'GET', url, remoteAddress: '203.0.113.5' })

  test('a request token is approved at once: 302 to the callback with the verifier, audited as the person from the browser\'s address', async () => {
    const rt = await makeRequestToken(t.domain, app)
    const answer = await get(`/oauth/authorize?oauth_token=${rt.token}`)
    assert.equal(answer.statusCode, 302, answer.body)
    assert.match(answer.headers.location ?? '', new RegExp(`^https://client\\.example/callback\\?oauth_token=${rt.token}&oauth_verifier=[A-Za-z0-9]{32}$`))
    const row = (await t.domain.stores.audit.list({ appId: app.id })).find((event) => event.event === 'consent.granted')
    assert.deepEqual([row?.userId, row?.address], [person.id, '203.0.113.5'])
  })

  test('what the page refuses it still refuses: a used token 410, a desktop app on authenticate 403; a disabled person gets an error page and the token stays usable', async () => {
    const rt = await makeRequestToken(t.domain, app, { status: 'denied' })
    assert.equal((await get(`/oauth/authorize?oauth_token=${rt.token}`)).statusCode, 410)
    const desktop = await makeApp(t.domain, { type: 'desktop', callbackUrls: [] })
    const oob = await makeRequestToken(t.domain, desktop, { callback: 'oob' })
    assert.equal((await get(`/oauth/authenticate?oauth_token=${oob.token}`)).statusCode, 403)
    await updateUser(t.domain, person.id, { disabled: true })
    const held = await makeRequestToken(t.domain, app)
    const refused = await get(`/oauth/authorize?oauth_token=${held.token}`)
    assert.equal(refused.statusCode, 400)
    await updateUser(t.domain, person.id, { disabled: false })
    assert.equal((await get(`/oauth/authorize?oauth_token=${held.token}`)).statusCode, 302)
  })

  test('OAuth 2.0: a valid request redirects with code and state; a refused one goes back with its error, as without auto-consent', async () => {
    const client = await oauth2Client(t.domain)
    const query = (scope: string) => new URLSearchParams(authorizeParameters(client, newVerifier(), scope)).toString()
    const first = await get(`/i/oauth2/authorize?${query('tweet.read')}`)
    assert.equal(first.statusCode, 302, first.body.slice(-400))
    const allowed = new URL(first.headers.location ?? '')
    assert.deepEqual([`${allowed.origin}${allowed.pathname}`, allowed.searchParams.get('state'), allowed.searchParams.get('code')?.length], [REDIRECT, 'state-1', 64])
    const refused = new URL((await get(`/i/oauth2/authorize?${query('tweet.fly')}`)).headers.location ?? '')
    assert.deepEqual([refused.searchParams.get('error'), refused.searchParams.has('code')], ['invalid_scope', false])
  })
})

describe('--auto-consent naming nobody', () => {
  test('the page is an error (404), the token untouched', async () => {
    const t = await buildTestApp({ http: { autoConsent: 'ghost' } })
    try {
      const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
      const answer = await t.app.inject({ method: 'GET', url: `/oauth/authorize?oauth_token=${rt.token}` })
      assert.equal(answer.statusCode, 404)
      assert.match(String(answer.headers['content-type']), /^text\/html/)
      assert.equal((await t.domain.stores.requestTokens.findByToken(rt.token))?.status, 'issued')
    } finally {
      await t.close()
    }
  })
})
