import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AppRecord, UserRecord } from '../../src/storage/records.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { authorizedRequestToken } from '../helpers/flow.ts'
import { errorCode } from '../helpers/oauth1-client.ts'
import { countRows, injectedTestServer, testClock, type TestServer } from '../helpers/test-app.ts'
import { assertRefusedOnlyWhenBroken } from '../helpers/refusal.ts'

// service-spec §4.4 and the issue's rules for POST /oauth/access_token.
describe('POST /oauth/access_token', () => {
  const clock = testClock()
  let server: TestServer
  let app: AppRecord
  let user: UserRecord

  before(async () => {
    server = await injectedTestServer({ clock })
    app = await makeApp(server.domain)
    user = (await makeUser(server.domain, { name: 'Ada Lovelace' })).user
  })
  after(() => server.close())

  const consumer = () => ({ key: app.consumerKey, secret: app.consumerSecret })
  const exchange = (rt: { token: string; secret: string }, verifier: string | undefined, placement: 'header' | 'body' | 'query' = 'header') =>
    server.signedFetch({
      consumer: consumer(),
      token: { key: rt.token, secret: rt.secret },
      url: `${server.url}/oauth/access_token${placement === 'query' && verifier ? `?oauth_verifier=${verifier}` : ''}`,
      ...(placement === 'header' && verifier !== undefined ? { oauth: { oauth_verifier: verifier } } : {}),
      ...(placement === 'body' && verifier !== undefined ? { body: { oauth_verifier: verifier } } : {}),
      timestamp: Math.floor(clock.nowMs() / 1000),
    })
  const rt = (options = {}) => authorizedRequestToken(server, app, user, options)

  test('exchanges an authorized request token and its verifier for an access token, fields in order (C37)', async () => {
    const requestToken = await rt()
    const answer = await exchange(requestToken, requestToken.verifier)
    assert.equal(answer.status, 200)
    assert.equal(answer.headers.get('content-type'), 'application/x-www-form-urlencoded')
    assert.match(answer.text, new RegExp(`^oauth_token=${user.id}-[A-Za-z0-9]{30}&oauth_token_secret=[A-Za-z0-9]{45}&user_id=${user.id}&screen_name=${user.screenName}$`))
    const again = await exchange(requestToken, requestToken.verifier)
    assert.equal(again.status, 401, 'a second exchange of the same request token')
    assert.equal(errorCode(again), 89)
  })

  test('takes the verifier from the header, the body or the query', async () => {
    for (const placement of ['body', 'query'] as const) {
      const requestToken = await rt()
      assert.equal((await exchange(requestToken, requestToken.verifier, placement)).status, 200, placement)
    }
  })

  test('gives the same person the same access token for the same app and level, until it is invalidated', async () => {
    const first = await rt()
    const a = await exchange(first, first.verifier)
    const second = await rt()
    const b = await exchange(second, second.verifier)
    assert.equal(a.form.oauth_token, b.form.oauth_token)
    assert.equal(a.form.oauth_token_secret, b.form.oauth_token_secret)
    const invalidated = await server.signedFetch({
      consumer: consumer(),
      token: { key: a.form.oauth_token!, secret: a.form.oauth_token_secret! },
      url: `${server.url}/1.1/oauth/invalidate_token.json`,
      timestamp: Math.floor(clock.nowMs() / 1000),
    })
    assert.equal(invalidated.status, 200)
    const third = await rt()
    const c = await exchange(third, third.verifier)
    assert.notEqual(c.form.oauth_token, a.form.oauth_token)
  })

  test('refuses an unsigned request carrying the token and verifier in the query with 400 code 215', async () => {
    const requestToken = await rt()
    const answer = await server.send({ method: 'POST', url: `${server.url}/oauth/access_token?oauth_token=${requestToken.token}&oauth_verifier=${requestToken.verifier}` })
    assert.equal(answer.status, 400)
    assert.equal(errorCode(answer), 215)
    assert.equal((await exchange(requestToken, requestToken.verifier)).status, 200, 'the refused attempt did not spend the token')
  })

  test('a missing or unknown request token gets 401 code 89 (C33, C36)', async () => {
    const good = await rt()
    await assertRefusedOnlyWhenBroken(
      (variant) =>
        variant === 'broken'
          ? server.signedFetch({ consumer: consumer(), url: `${server.url}/oauth/access_token`, oauth: { oauth_verifier: good.verifier }, timestamp: Math.floor(clock.nowMs() / 1000) })
          : exchange(good, good.verifier),
      { status: 401, code: 89 },
    )
    const other = await rt()
    await assertRefusedOnlyWhenBroken((variant) => exchange(variant === 'broken' ? { token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA', secret: 'x' } : other, other.verifier), { status: 401, code: 89 })
    const unknown = await exchange({ token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA', secret: 'x' }, 'x')
    assert.equal(unknown.json.errors[0].message, 'Invalid or expired token.')
  })

  test('a request token of another app gets 401 code 89', async () => {
    const other = await makeApp(server.domain)
    const foreign = await authorizedRequestToken(server, other, user)
    await assertRefusedOnlyWhenBroken(
      (variant) =>
        server.signedFetch({
          consumer: variant === 'broken' ? consumer() : { key: other.consumerKey, secret: other.consumerSecret },
          token: { key: foreign.token, secret: foreign.secret },
          url: `${server.url}/oauth/access_token`,
          oauth: { oauth_verifier: foreign.verifier },
          timestamp: Math.floor(clock.nowMs() / 1000),
        }),
      { status: 401, code: 89 },
    )
  })

  test('an expired request token gets 401 code 89', async () => {
    // Two tokens approved at the same moment: the one exchanged 15 minutes and a second later is
    // refused, the one exchanged 14 minutes later is accepted.
    const [late, inTime] = [await rt(), await rt()]
    await assertRefusedOnlyWhenBroken(async (variant) => {
      const wait = variant === 'broken' ? 901_000 : 840_000
      clock.advance(wait)
      try {
        const requestToken = variant === 'broken' ? late : inTime
        return await exchange(requestToken, requestToken.verifier)
      } finally {
        clock.advance(-wait)
      }
    }, { status: 401, code: 89 })
  })

  test('a missing or wrong verifier gets 401 code 32 and issues nothing (C34, C48)', async () => {
    const requestToken = await rt()
    const before = await countRows(server.dbPath, 'access_tokens')
    for (const verifier of [undefined, 'wrong']) {
      const answer = await exchange(requestToken, verifier)
      assert.equal(answer.status, 401)
      assert.equal(errorCode(answer), 32)
    }
    assert.equal(await countRows(server.dbPath, 'access_tokens'), before)
    assert.equal((await exchange(requestToken, requestToken.verifier)).status, 200, 'two wrong tries leave the token usable')
  })

  test('three wrong verifiers kill the request token: the right one then gets 401 code 89', async () => {
    const guessedThrice = await rt({ verifier: '1234567' })
    const guessedTwice = await rt({ verifier: '1234567' })
    for (const guess of ['0000000', '1111111', '2222222']) assert.equal(errorCode(await exchange(guessedThrice, guess)), 32)
    for (const guess of ['0000000', '1111111']) assert.equal(errorCode(await exchange(guessedTwice, guess)), 32)
    // The right verifier after three wrong ones is refused; after two it is still accepted.
    await assertRefusedOnlyWhenBroken((variant) => exchange(variant === 'broken' ? guessedThrice : guessedTwice, '1234567'), { status: 401, code: 89 })
  })

  test('of 100 wrong verifiers sent together with the right one, at most 3 get 401 code 32 and the rest 89; the right one wins only before the third', async () => {
    const own = await makeApp(server.domain)
    const requestToken = await authorizedRequestToken(server, own, user, { verifier: '1234567' })
    const guesses = Array.from({ length: 100 }, (_, i) => String(1_000_000 + i * 7919).padStart(7, '0'))
    const exchange = (verifier: string) =>
      server.signedFetch({
        consumer: { key: own.consumerKey, secret: own.consumerSecret },
        token: { key: requestToken.token, secret: requestToken.secret },
        url: `${server.url}/oauth/access_token`,
        oauth: { oauth_verifier: verifier },
        timestamp: Math.floor(clock.nowMs() / 1000),
      })
    const [right, ...wrong] = await Promise.all([exchange('1234567'), ...guesses.map(exchange)])
    const counted = wrong.filter((a) => a.status === 401 && errorCode(a) === 32).length
    assert.ok(counted <= 3, `${counted} wrong verifiers were answered 32`)
    assert.ok(wrong.every((a) => a.status === 401 && (errorCode(a) === 32 || errorCode(a) === 89)), 'every wrong one gets 32 or 89')
    if (right!.status === 200) assert.ok(counted <= 2, 'the right one won, so it was checked before the third failure')
    else assert.deepEqual([right!.status, errorCode(right!), counted], [401, 89, 3])
    const after = await exchange('1234567')
    assert.deepEqual([after.status, errorCode(after)], [401, 89], 'the token is used or dead either way')
  })

  test('a request token that nobody approved yet cannot be exchanged (401 code 32); the guesses count, so the third kills it', async () => {
    const answer = await server.signedFetch({ consumer: consumer(), url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' }, timestamp: Math.floor(clock.nowMs() / 1000) })
    const pending = { token: answer.form.oauth_token!, secret: answer.form.oauth_token_secret! }
    assert.equal(errorCode(await exchange(pending, '')), 32)
    assert.equal(errorCode(await exchange(pending, 'guess')), 32)
    assert.equal(errorCode(await exchange(pending, 'guess again')), 32)
    assert.equal(errorCode(await exchange(pending, 'one more')), 89)
  })

  test('a request signed with the wrong request token secret gets 401 code 32 (C36)', async () => {
    const requestToken = await rt()
    await assertRefusedOnlyWhenBroken(
      (variant) => exchange({ token: requestToken.token, secret: variant === 'broken' ? 'not-the-secret' : requestToken.secret }, requestToken.verifier),
      { status: 401, code: 32 },
    )
  })

  test('of fifty concurrent exchanges of one verifier exactly one succeeds (single use)', async () => {
    const requestToken = await rt()
    const answers = await Promise.all(Array.from({ length: 50 }, () => exchange(requestToken, requestToken.verifier)))
    const ok = answers.filter((a) => a.status === 200)
    assert.equal(ok.length, 1)
    assert.ok(answers.filter((a) => a.status !== 200).every((a) => a.status === 401 && errorCode(a) === 89))
  })
})
