import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { updateUser } from '../../../src/domain/admin/people.ts'
import { NO_PASSWORD } from '../../../src/domain/passwords.ts'
import { Browser } from '../../helpers/browser.ts'
import { signInAtProvider } from '../../helpers/oidc-provider.ts'
import { CLIENT, providerEntry, signInThrough, startOidcWorld, startSignIn, type OidcWorld } from '../../helpers/oidc-setup.ts'

describe('signing in with an OpenID Connect provider (node-oidc-provider)', () => {
  let w: OidcWorld
  const logLines: string[] = []
  before(async () => {
    w = await startOidcWorld((issuer) => [providerEntry('acme', issuer), providerEntry('acme-email', issuer, { link: { matchBy: 'email' } })], { server: { logLines } })
  })
  after(() => w.close())

  const signedInAs = async (browser: Browser) => (await browser.get(`${w.t.url}/console`)).body

  test('a first sign-in creates the person just in time (screen name and name from the claims), a second finds them again', async () => {
    w.accounts.set('sub-ada', { claims: { preferred_username: 'ada.lovelace', name: 'Ada Lovelace', email: 'ada@example.com', email_verified: true } })
    const browser = new Browser()
    const back = await signInThrough(browser, w.t.url, 'acme', 'sub-ada')
    assert.equal(back.statusCode, 302)
    assert.equal(back.headers.location, '/console')
    assert.match(await signedInAs(browser), /@ada_lovelace/)
    const link = await w.t.domain.stores.identityLinks.find('acme', 'sub-ada')
    const person = await w.t.domain.stores.users.findById(link!.userId)
    assert.equal(person?.screenName, 'ada_lovelace')
    assert.equal(person?.name, 'Ada Lovelace')
    const again = new Browser()
    await signInThrough(again, w.t.url, 'acme', 'sub-ada')
    assert.equal((await w.t.domain.stores.identityLinks.find('acme', 'sub-ada'))?.userId, person?.id)
    assert.match(await signedInAs(again), /@ada_lovelace/)
    assert.deepEqual([...new Set(w.provider.tokenRequests)], ['basic'], 'the client secret goes in HTTP Basic, OpenID Connect\'s default')
  })

  test('a provider whose client sends its secret in the body (client_secret_post) signs people in too', async () => {
    const post = await startOidcWorld((issuer) => [providerEntry('acme-post', issuer, { tokenEndpointAuthMethod: 'client_secret_post' })])
    try {
      post.accounts.set('sub-pat', { claims: { preferred_username: 'pat' } })
      const browser = new Browser()
      const back = await signInThrough(browser, post.t.url, 'acme-post', 'sub-pat')
      assert.equal(back.statusCode, 302, back.body)
      assert.match((await browser.get(`${post.t.url}/console`)).body, /@pat/)
      assert.deepEqual(post.provider.tokenRequests, ['body'])
    } finally {
      await post.close()
    }
  })

  test('a wrong state is refused (1112), the same return twice is refused (1113), a return in another browser is refused (1115)', async () => {
    w.accounts.set('sub-bo', { claims: { preferred_username: 'bo' } })
    const browser = new Browser()
    await startSignIn(browser, w.t.url, 'acme')
    const wrong = await browser.get(`${w.t.url}/login/oidc/acme/callback?code=abc&state=${'x'.repeat(43)}`)
    assert.equal(wrong.statusCode, 404)
    assert.match(wrong.body, /This sign-in link is not valid/)
    const twice = await browser.get(`${w.t.url}/login/oidc/acme/callback?code=abc&state=a&state=b&error=x&error=y`)
    assert.equal(twice.statusCode, 404, 'a repeated state is no state')
    const callback = await signInAtProvider((await startSignIn(browser, w.t.url, 'acme')).href, 'sub-bo')
    const other = await new Browser().get(callback)
    assert.equal(other.statusCode, 403)
    assert.match(other.body, /started in another browser/)
    const callback2 = await signInAtProvider((await startSignIn(browser, w.t.url, 'acme')).href, 'sub-bo')
    assert.equal((await browser.get(callback2)).statusCode, 302)
    const replayed = await browser.get(callback2)
    assert.equal(replayed.statusCode, 410)
    assert.match(replayed.body, /already been used/)
  })

  test("a state started for one provider is refused at another's callback (1112)", async () => {
    w.accounts.set('sub-cy', { claims: { preferred_username: 'cy' } })
    const browser = new Browser()
    const callback = new URL(await signInAtProvider((await startSignIn(browser, w.t.url, 'acme')).href, 'sub-cy'))
    callback.pathname = '/login/oidc/acme-email/callback'
    const answer = await browser.get(callback.href)
    assert.equal(answer.statusCode, 404)
  })

  test("an ID token with another sign-in's nonce (foreign, or one already used) is refused (1125), and nobody is signed in", async () => {
    w.accounts.set('sub-dee', { claims: { preferred_username: 'dee' } })
    const browser = new Browser()
    const first = await startSignIn(browser, w.t.url, 'acme')
    const second = await startSignIn(browser, w.t.url, 'acme')
    // The second sign-in's request to the provider, carrying the first one's nonce.
    second.searchParams.set('nonce', first.searchParams.get('nonce')!)
    const answer = await browser.get(await signInAtProvider(second.href, 'sub-dee'))
    assert.equal(answer.statusCode, 400)
    assert.match(answer.body, /The sign-in at Acme acme did not succeed/)
    assert.equal(await w.t.domain.stores.identityLinks.find('acme', 'sub-dee'), undefined)
    // The first one finishes, then its nonce comes again in a third.
    assert.equal((await browser.get(await signInAtProvider(first.href, 'sub-dee'))).statusCode, 302)
    const third = await startSignIn(new Browser(), w.t.url, 'acme')
    const thirdBrowser = new Browser()
    const replay = await startSignIn(thirdBrowser, w.t.url, 'acme')
    replay.searchParams.set('nonce', first.searchParams.get('nonce')!)
    assert.ok(third)
    assert.equal((await thirdBrowser.get(await signInAtProvider(replay.href, 'sub-dee'))).statusCode, 400)
  })

  test('an expired ID token is refused (1125)', async () => {
    w.accounts.set('sub-old', { claims: { preferred_username: 'old' }, idTokenTtlSeconds: -600 })
    const browser = new Browser()
    const callback = new URL(await signInAtProvider((await startSignIn(browser, w.t.url, 'acme')).href, 'sub-old'))
    const answer = await browser.get(callback.href)
    assert.equal(answer.statusCode, 400)
    const logged = logLines.join('\n')
    assert.match(logged, /"code":1125/, 'the refusal is logged with its reason')
    assert.ok(!logged.includes(callback.searchParams.get('code')!), 'never the code')
    assert.ok(!logged.includes(CLIENT.clientSecret), 'never the client secret')
    assert.match(answer.body, /did not succeed/)
    assert.equal(await w.t.domain.stores.identityLinks.find('acme', 'sub-old'), undefined)
  })

  test("the provider's error answer is a plain page (1125) naming the provider", async () => {
    const browser = new Browser()
    const start = await startSignIn(browser, w.t.url, 'acme')
    const answer = await browser.get(`${w.t.url}/login/oidc/acme/callback?error=access_denied&state=${start.searchParams.get('state')}`)
    assert.equal(answer.statusCode, 400)
    assert.match(answer.body, /The sign-in at Acme acme did not succeed/)
  })

  test('a subject linked to a disabled person is refused (1110), whatever the provider says', async () => {
    w.accounts.set('sub-eve', { claims: { preferred_username: 'eve' } })
    await signInThrough(new Browser(), w.t.url, 'acme', 'sub-eve')
    const link = await w.t.domain.stores.identityLinks.find('acme', 'sub-eve')
    await updateUser(w.t.domain, link!.userId, { disabled: true })
    const answer = await signInThrough(new Browser(), w.t.url, 'acme', 'sub-eve')
    assert.equal(answer.statusCode, 403)
    assert.match(answer.body, /This account cannot sign in here/)
  })

  test('a claim that cannot make a screen name is refused (1111)', async () => {
    w.accounts.set('sub-sym', { claims: { preferred_username: '!!!' } })
    const answer = await signInThrough(new Browser(), w.t.url, 'acme', 'sub-sym')
    assert.equal(answer.statusCode, 400)
    assert.match(answer.body, /no name that can be a screen name/)
  })

  test('where email links, an unverified address is refused (1110) and a verified one links the existing person', async () => {
    const email = 'grace@example.org'
    const user = { id: w.t.domain.newId(), screenName: 'grace', name: 'Grace', passwordHash: NO_PASSWORD, createdAtMs: Date.now(), email }
    assert.ok(await w.t.domain.stores.users.create(user))
    w.accounts.set('sub-unv', { claims: { preferred_username: 'zed', email, email_verified: false } })
    const refused = await signInThrough(new Browser(), w.t.url, 'acme-email', 'sub-unv')
    assert.equal(refused.statusCode, 403)
    assert.equal(await w.t.domain.stores.identityLinks.find('acme-email', 'sub-unv'), undefined)
    w.accounts.set('sub-ver', { claims: { preferred_username: 'zed', email: email.toUpperCase(), email_verified: true } })
    const browser = new Browser()
    assert.equal((await signInThrough(browser, w.t.url, 'acme-email', 'sub-ver')).statusCode, 302)
    assert.equal((await w.t.domain.stores.identityLinks.find('acme-email', 'sub-ver'))?.userId, user.id)
  })
})
