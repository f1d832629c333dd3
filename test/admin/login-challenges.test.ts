// The admin API of login delegation (docs/accounts.md) over HTTP: what the platform's login page
// reads and answers, its refusals, the audit, and the identities admin (a user's links, unlinking).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { delegationMethod } from '../../src/pages/sign-in-methods.ts'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { testClock } from '../helpers/test-app.ts'

const LOGIN_URL = 'https://platform.example/login'

describe('login challenges in the admin API', () => {
  let server: AdminTestServer
  const clock = testClock(Date.now())

  before(async () => {
    server = await injectedAdminTestServer({
      clock,
      http: {
        signIn: { password: true, methods: [delegationMethod('Platform')] },
        delegation: { loginUrl: new URL(LOGIN_URL), label: 'Platform', challengeSeconds: 600, policy: { create: true } },
      },
    })
  })
  after(() => server?.close())

  /** A browser leaves for the platform: its cookie, and the challenge the platform is sent. */
  async function leave(returnTo = '/console'): Promise<{ cookie: string; challenge: string }> {
    const answer = await server.send({ method: 'GET', url: `${server.url}/login/delegated?return_to=${encodeURIComponent(returnTo)}` })
    assert.equal(answer.status, 302)
    const location = new URL(answer.headers.get('location')!)
    assert.equal(`${location.origin}${location.pathname}`, LOGIN_URL)
    const cookie = answer.headers.get('set-cookie')!.split(';')[0]!
    return { cookie, challenge: location.searchParams.get('login_challenge')! }
  }

  test('any return_to starts a sign-in that comes back to one of our pages, never another site', async () => {
    for (const returnTo of ['//', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '%', '?force_login=true', '']) {
      const { challenge } = await leave(returnTo)
      assert.equal((await server.admin('GET', path(challenge))).status, 200, returnTo)
      assert.equal((await server.domain.stores.externalSignIns.find(challenge))?.returnTo, '/console', returnTo)
    }
  })

  const path = (challenge: string, action = '') => `/admin/v1/login-challenges/${encodeURIComponent(challenge)}${action}`

  test("reading names the consent page's app, its login hint and force_login, and when it expires", async () => {
    const app = await makeApp(server.domain, { name: 'Birdwatch' })
    const issued = await server.signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
    const token = issued.form.oauth_token!
    const { challenge } = await leave(`/oauth/authorize?oauth_token=${token}&screen_name=carol&force_login=true`)
    const read = await server.admin('GET', path(challenge))
    assert.equal(read.status, 200, read.text)
    assert.deepEqual(read.json.app, { app_id: app.id, name: 'Birdwatch' })
    assert.equal(read.json.login_hint, 'carol')
    assert.equal(read.json.force_login, true)
    assert.equal(read.json.answered, false)
    assert.equal(Date.parse(read.json.expires_at), clock.nowMs() + 600_000)
  })

  test('accept answers where to send the browser, once; a second answer is 409; audited without the challenge', async () => {
    const { challenge } = await leave()
    const accepted = await server.admin('PUT', path(challenge, '/accept'), { subject: 'p-1', screen_name: 'dora', name: 'Dora', remember: true })
    assert.equal(accepted.status, 200, accepted.text)
    const redirect = new URL(accepted.json.redirect_to)
    assert.equal(`${redirect.origin}${redirect.pathname}`, `${server.url}/login/delegated/return`)
    assert.equal(redirect.searchParams.get('login_challenge'), challenge)
    assert.match(redirect.searchParams.get('login_verifier') ?? '', /^[A-Za-z0-9]{43}$/, 'a verifier only this answer carries')
    assert.equal((await server.admin('GET', path(challenge))).json.answered, true)
    for (const [action, body] of [['/accept', { subject: 'p-2', screen_name: 'eve' }], ['/reject', {}]] as const) {
      const again = await server.admin('PUT', path(challenge, action), body)
      assert.equal(again.status, 409, again.text)
      assert.equal(again.json.type, 'urn:latchkey:problem:conflict')
      assert.match(again.json.detail, /already been answered/)
    }
    const audit = await server.admin('GET', '/admin/v1/audit?event=login_challenge.accepted')
    assert.deepEqual(audit.json.data[0].detail, { subject: 'p-1', remember: true, actor: `admin_token:${server.tokenId}` })
    assert.ok(!JSON.stringify(audit.json).includes(challenge), 'the challenge is never in the audit')
  })

  test('reject takes no body at all, or a code and a description', async () => {
    const bare = await server.admin('PUT', path((await leave()).challenge, '/reject'))
    assert.equal(bare.status, 200, bare.text)
    const worded = await server.admin('PUT', path((await leave()).challenge, '/reject'), { error: 'locked', error_description: 'Your platform account is locked.' })
    assert.equal(worded.status, 200, worded.text)
  })

  test('a browser back before the platform answered gets a clear page (409, 1118), and the challenge is spent', async () => {
    const { cookie, challenge } = await leave()
    const back = await server.send({ method: 'GET', url: `${server.url}/login/delegated/return?login_challenge=${challenge}`, headers: { cookie } })
    assert.equal(back.status, 409)
    assert.match(back.text, /has not finished this sign-in/)
    assert.equal((await server.admin('PUT', path(challenge, '/accept'), { subject: 'late', screen_name: 'late' })).status, 404)
  })

  test('an accepted challenge without its verifier signs no one in, even in the browser that started it (and is spent)', async () => {
    const { cookie, challenge } = await leave()
    const accepted = await server.admin('PUT', path(challenge, '/accept'), { subject: 'p-verifier', screen_name: 'verified' })
    for (const query of [`login_challenge=${challenge}`, `login_challenge=${challenge}&login_verifier=${'x'.repeat(43)}`]) {
      const back = await server.send({ method: 'GET', url: `${server.url}/login/delegated/return?${query}`, headers: { cookie } })
      assert.ok(back.status === 404 || back.status === 410, `${back.status} ${back.text}`)
      assert.equal(back.headers.get('set-cookie'), null, 'no session')
    }
    assert.equal((await server.send({ method: 'GET', url: accepted.json.redirect_to, headers: { cookie } })).status, 410, 'spent by the first try')
  })

  test('unknown, used and expired challenges are 404 alike', async () => {
    assert.equal((await server.admin('GET', path('no-such-challenge'))).status, 404)
    assert.equal((await server.admin('PUT', path('no-such-challenge', '/accept'), { subject: 'x', screen_name: 'x' })).status, 404)
    const used = await leave()
    const accepted = await server.admin('PUT', path(used.challenge, '/accept'), { subject: 'p-used', screen_name: 'used' })
    const back = await server.send({ method: 'GET', url: accepted.json.redirect_to, headers: { cookie: used.cookie } })
    assert.equal(back.status, 302, back.text)
    assert.equal((await server.admin('GET', path(used.challenge))).status, 404)
    const late = await leave()
    clock.advance(601_000)
    assert.equal((await server.admin('GET', path(late.challenge))).status, 404)
    assert.equal((await server.admin('PUT', path(late.challenge, '/reject'))).status, 404)
  })

  test('bad answers are 400 and change nothing: subject 1–255 characters, screen name by X rule, nothing unknown', async () => {
    const { challenge } = await leave()
    const bad = [
      { screen_name: 'dora' },
      { subject: '', screen_name: 'dora' },
      { subject: 'x'.repeat(256), screen_name: 'dora' },
      { subject: 'p', screen_name: 'has space' },
      { subject: 'p', screen_name: 'sixteen_chars_xx' },
      { subject: 'p', screen_name: 'dora', remember: 'yes' },
      { subject: 'p', screen_name: 'dora', admin: true },
    ]
    for (const body of bad) {
      const answer = await server.admin('PUT', path(challenge, '/accept'), body)
      assert.equal(answer.status, 400, JSON.stringify(body))
    }
    assert.equal((await server.admin('PUT', path(challenge, '/reject'), { error_description: 'x'.repeat(301) })).status, 400)
    assert.equal((await server.admin('GET', path(challenge))).json.answered, false)
    assert.equal((await server.admin('GET', path(challenge), undefined, { auth: null })).status, 401)
  })

  test("a user shows their identities; unlinking removes one (audited), and a second unlink is 404", async () => {
    const { cookie, challenge } = await leave()
    const accepted = await server.admin('PUT', path(challenge, '/accept'), { subject: 'p-frank', screen_name: 'frank' })
    const back = await server.send({ method: 'GET', url: accepted.json.redirect_to, headers: { cookie } })
    assert.equal(back.status, 302, back.text)
    const link = await server.domain.stores.identityLinks.find('login', 'p-frank')
    assert.ok(link)
    const user = await server.admin('GET', `/admin/v1/users/${link.userId}`)
    assert.equal(user.json.screen_name, 'frank')
    assert.deepEqual(
      user.json.identities.map((i: Record<string, string>) => ({ provider: i.provider, subject: i.subject, signed: typeof i.last_sign_in_at })),
      [{ provider: 'login', subject: 'p-frank', signed: 'string' }],
    )
    const unlinkPath = `/admin/v1/users/${link.userId}/identities/login/p-frank`
    assert.equal((await server.admin('DELETE', unlinkPath)).status, 204)
    assert.deepEqual((await server.admin('GET', `/admin/v1/users/${link.userId}`)).json.identities, [])
    assert.equal((await server.admin('DELETE', unlinkPath)).status, 404)
    const audit = await server.admin('GET', `/admin/v1/audit?event=identity.unlinked&user_id=${link.userId}`)
    assert.equal(audit.json.data[0].detail.subject, 'p-frank')
  })
})
