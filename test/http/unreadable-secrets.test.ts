// A stored secret the master key cannot open (a backup edited offline, a damaged disk, a key since
// retired): what uses it is refused with a clear 403, what does not answer as before, and the app's
// owner can still reach it and give it new keys; never a 500, never a stack in the log. Both backends.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { rotateAppKeys } from '../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { E } from '../../src/errors/catalogue.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { damageSealedKey, injectedTestServer, type TestServer } from '../helpers/test-app.ts'
import { Browser } from '../helpers/browser.ts'

const FORM = 'application/x-www-form-urlencoded'
const REDIRECT = 'https://client.example/callback'
const PAGE_SAYS = 'This app cannot be used now: the service cannot read its stored keys. Ask the operator of this service.'

describe('an app whose stored key or secret cannot be opened', () => {
  const logLines: string[] = []
  let t: TestServer
  let address = 0
  before(async () => {
    t = await injectedTestServer({ logLines })
  })
  after(() => t.close())

  /** A person with two apps, each an OAuth 2.0 public client, signed in to the console; the first app's `column` damaged at rest. */
  async function damagedAndSound(column: 'consumer_key' | 'consumer_secret') {
    const { user, password } = await makeUser(t.domain)
    const apps = [await makeApp(t.domain, { owner: user, name: 'Damaged', callbackUrls: [REDIRECT] }), await makeApp(t.domain, { owner: user, name: 'Sound', callbackUrls: [REDIRECT] })]
    const clientIds: string[] = []
    for (const app of apps) clientIds.push((await setOAuth2Client(t.domain, { appId: app.id, setting: 'public' })).client!.clientId)
    const browser = new Browser(t.app, `10.46.9.${++address}`)
    assert.equal((await browser.fill('/console', '/console/sign-in', { username: user.screenName, password, next: '/console' })).statusCode, 302)
    await damageSealedKey(t.dbPath, apps[0]!.id, column)
    return { apps, clientIds, browser, logged: logLines.length }
  }

  const failuresLogged = (from: number) => logLines.slice(from).filter((line) => (JSON.parse(line) as { level: number }).level >= 50 || line.includes('SealError'))

  const bearerFor = (app: { consumerKey: string; consumerSecret: string }) =>
    t.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { authorization: `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`, 'content-type': FORM },
      payload: 'grant_type=client_credentials',
    })

  const consentPage = (clientId: string) =>
    t.app.inject({
      method: 'GET',
      url: `/i/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'users.read', state: 's', code_challenge: 'c'.repeat(43), code_challenge_method: 'plain' })}`,
    })

  test('a damaged consumer secret: /oauth2/token is 403 code 1009 for that app, 200 for the other; new keys (app rotate-keys) mend it', async () => {
    const { apps, logged } = await damagedAndSound('consumer_secret')
    const refused = await bearerFor(apps[0]!)
    assert.equal(refused.statusCode, 403, refused.body)
    assert.deepEqual(JSON.parse(refused.body), { errors: [{ code: E.credentialUnreadable.code, message: E.credentialUnreadable.message }] })
    const refusal = logLines.slice(logged).map((line) => JSON.parse(line) as { msg: string; code?: number; detail?: string }).find((line) => line.msg === 'request refused')
    assert.match(refusal?.detail ?? '', new RegExp(`^app ${apps[0]!.id}'s consumer secret: a value sealed under key \\S+ failed its integrity check$`), 'the log says which app and which value')
    assert.equal((await bearerFor(apps[1]!)).statusCode, 200)
    const mended = await rotateAppKeys(t.domain, apps[0]!.id)
    assert.equal((await bearerFor(mended)).statusCode, 200)
    assert.deepEqual(failuresLogged(logged), [])
  })

  test("a damaged consumer secret: a request signed with it (the owner's access token) is 403 code 1009, the other app's is 200", async () => {
    const { apps, logged } = await damagedAndSound('consumer_secret')
    const verify = async (app: (typeof apps)[number]) => {
      const { token } = await issueOwnerToken(t.domain, app.id)
      return t.signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: { key: token.token, secret: token.secret }, method: 'GET', url: `${t.url}/1.1/account/verify_credentials.json` })
    }
    const refused = await verify(apps[0]!)
    assert.equal(refused.status, 403, refused.text)
    assert.deepEqual(refused.json, { errors: [{ code: E.credentialUnreadable.code, message: E.credentialUnreadable.message }] })
    assert.equal((await verify(apps[1]!)).status, 200)
    assert.deepEqual(failuresLogged(logged), [])
  })

  test('a damaged consumer secret: the OAuth 2.0 consent page and the console, which do not use it, answer as before', async () => {
    const { apps, clientIds, browser, logged } = await damagedAndSound('consumer_secret')
    assert.equal((await consentPage(clientIds[0]!)).statusCode, 200)
    const list = await browser.get('/console')
    assert.equal(list.statusCode, 200, list.body)
    assert.ok(list.body.includes('Damaged') && list.body.includes('Sound'), 'the list names both apps')
    assert.equal((await browser.get(`/console/apps/${apps[0]!.id}`)).statusCode, 200)
    assert.deepEqual(failuresLogged(logged), [])
  })

  test("a damaged consumer key: the console's page of that app, which shows it, is a 403 page that says so; the list and the other app's page are shown", async () => {
    const { apps, browser, logged } = await damagedAndSound('consumer_key')
    const refused = await browser.get(`/console/apps/${apps[0]!.id}`)
    assert.equal(refused.statusCode, 403, refused.body)
    assert.match(refused.headers['content-type'] as string, /^text\/html/)
    assert.ok(refused.body.includes(PAGE_SAYS), refused.body)
    assert.equal((await browser.get('/console')).statusCode, 200)
    assert.equal((await browser.get(`/console/apps/${apps[1]!.id}`)).statusCode, 200)
    assert.deepEqual(failuresLogged(logged), [])
  })
})
