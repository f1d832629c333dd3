import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOrReuseAccessToken } from '../../../src/domain/oauth1/issue-access-token.ts'
import {
  addToQuery,
  approveAuthorization,
  denyAuthorization,
  isAlreadyGranted,
  loadConsent,
} from '../../../src/domain/oauth1/authorization.ts'
import { deleteApp, updateApp } from '../../../src/domain/registry/apps.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import { assertRefusedOnlyWhenBrokenCall } from '../../helpers/domain-tier.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { openTestDomain, testClock, type TestDomain } from '../../helpers/test-domain.ts'
import { makeRequestToken } from '../../helpers/consent-pages.ts'

const withCode = (status: number, code: number) => (error: unknown) =>
  error instanceof ServiceError && error.status === status && error.code === code

describe('authorization (the browser step, domain)', () => {
  const clock = testClock()
  let t: TestDomain
  before(async () => {
    t = await openTestDomain({ clock })
  })
  after(() => t.close())

  test('loadConsent returns the request token, its app and the app owner', async () => {
    const { user: owner } = await makeUser(t.domain, { name: 'Olive Owner' })
    const app = await makeApp(t.domain, { owner, name: 'Photo Printer' })
    const rt = await makeRequestToken(t.domain, app)
    const consent = await loadConsent(t.domain, { token: rt.token, flow: 'authorize' })
    assert.equal(consent.requestToken.token, rt.token)
    assert.equal(consent.app.name, 'Photo Printer')
    assert.equal(consent.owner?.name, 'Olive Owner')
  })

  test('a missing token is 400, an unknown one 404', async () => {
    await assert.rejects(loadConsent(t.domain, { token: undefined, flow: 'authorize' }), withCode(400, 1100))
    await assert.rejects(loadConsent(t.domain, { token: 'no-such-token', flow: 'authorize' }), withCode(404, 1101))
    await assert.rejects(loadConsent(t.domain, { token: 'x'.repeat(500), flow: 'authorize' }), withCode(404, 1101))
    // In their place, a request token that exists loads.
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    for (const [token, code] of [[undefined, 1100], ['no-such-token', 1101], ['x'.repeat(500), 1101]] as const) {
      await assertRefusedOnlyWhenBrokenCall((variant) => loadConsent(t.domain, { token: variant === 'broken' ? token : rt.token, flow: 'authorize' }), code)
    }
  })

  test('an expired token is 410 "expired"', async () => {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    clock.advance(t.domain.settings.requestTokenTtlSeconds * 1000)
    await assert.rejects(loadConsent(t.domain, { token: rt.token, flow: 'authorize' }), withCode(410, 1102))
  })

  test('an approved, used, cancelled or dead token is 410 "already used"', async () => {
    const app = await makeApp(t.domain)
    for (const status of ['authorized', 'used', 'denied', 'dead'] as const) {
      const rt = await makeRequestToken(t.domain, app, { status })
      await assert.rejects(loadConsent(t.domain, { token: rt.token, flow: 'authorize' }), withCode(410, 1103), status)
    }
  })

  test('a suspended app is 403', async () => {
    const app = await makeApp(t.domain, { isSuspended: true })
    const rt = await makeRequestToken(t.domain, app)
    await assert.rejects(loadConsent(t.domain, { token: rt.token, flow: 'authorize' }), withCode(403, 1104))
    // The same token loads once the app is no longer suspended.
    await assertRefusedOnlyWhenBrokenCall(async (variant) => {
      if (variant === 'unbroken') await updateApp(t.domain, app.id, { isSuspended: false })
      return loadConsent(t.domain, { token: rt.token, flow: 'authorize' })
    }, 1104)
  })

  test('an app deleted between the read of its request token and the read of the app: 404 "unknown", the detail says why', async () => {
    const app = await makeApp(t.domain)
    const rt = await makeRequestToken(t.domain, app)
    const requestTokens = t.domain.stores.requestTokens
    // The operator's delete lands right after the token was read (a unit of work on another instance).
    const deletedMeanwhile = {
      ...t.domain,
      stores: {
        ...t.domain.stores,
        requestTokens: {
          ...requestTokens,
          findByToken: async (token: string) => {
            const found = await requestTokens.findByToken(token)
            await deleteApp(t.domain, app.id)
            return found
          },
        },
      },
    }
    await assert.rejects(loadConsent(deletedMeanwhile, { token: rt.token, flow: 'authorize' }), (error: unknown) => {
      assert.ok(withCode(404, 1101)(error), String(error))
      assert.equal((error as ServiceError).detail, 'app of the request token is gone')
      return true
    })
  })

  test('a desktop app may use authorize but not authenticate', async () => {
    const app = await makeApp(t.domain, { type: 'desktop', callbackUrls: [] })
    const rt = await makeRequestToken(t.domain, app, { callback: 'oob' })
    await loadConsent(t.domain, { token: rt.token, flow: 'authorize' })
    await assert.rejects(loadConsent(t.domain, { token: rt.token, flow: 'authenticate' }), withCode(403, 1105))
  })

  test('approving a web flow sends the callback, its own query kept, oauth_token and a 32-character verifier', async () => {
    const { user } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { callbackUrls: ['https://client.example/cb?state=a%20b&x'] })
    const rt = await makeRequestToken(t.domain, app)
    const result = await approveAuthorization(t.domain, { token: rt.token, userId: user.id, flow: 'authorize' })
    assert.ok('redirectTo' in result)
    const prefix = `https://client.example/cb?state=a%20b&x&oauth_token=${rt.token}&oauth_verifier=`
    assert.ok(result.redirectTo.startsWith(prefix), result.redirectTo)
    const verifier = result.redirectTo.slice(prefix.length)
    assert.match(verifier, /^[A-Za-z0-9]{32}$/)
    const stored = await t.domain.stores.requestTokens.findByToken(rt.token)
    assert.deepEqual([stored?.status, stored?.userId], ['authorized', user.id])
    assert.equal((await t.domain.stores.requestTokens.redeemVerifier(rt.token, verifier, 3, Date.now())).outcome, 'redeemed', 'the verifier in the redirect is the one stored')
  })

  test('approving an oob flow gives a 7-digit PIN that is the stored verifier', async () => {
    const { user } = await makeUser(t.domain)
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain), { callback: 'oob' })
    const result = await approveAuthorization(t.domain, { token: rt.token, userId: user.id, flow: 'authorize' })
    assert.ok('pin' in result)
    assert.match(result.pin, /^\d{7}$/)
    assert.equal((await t.domain.stores.requestTokens.redeemVerifier(rt.token, result.pin, 3, Date.now())).outcome, 'redeemed', 'the PIN is the stored verifier')
  })

  test('a token can be approved only once', async () => {
    const { user } = await makeUser(t.domain)
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    await approveAuthorization(t.domain, { token: rt.token, userId: user.id, flow: 'authorize' })
    await assert.rejects(
      approveAuthorization(t.domain, { token: rt.token, userId: user.id, flow: 'authorize' }),
      withCode(410, 1103),
    )
  })

  test('denying sends denied=<token> with no oauth_token or verifier, and the token is dead after', async () => {
    const { user } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { callbackUrls: ['myapp://done?app=1'] })
    const rt = await makeRequestToken(t.domain, app)
    const result = await denyAuthorization(t.domain, { token: rt.token, flow: 'authorize' })
    assert.deepEqual(result, { redirectTo: `myapp://done?app=1&denied=${rt.token}` })
    assert.equal((await t.domain.stores.requestTokens.findByToken(rt.token))?.status, 'denied')
    await assert.rejects(
      approveAuthorization(t.domain, { token: rt.token, userId: user.id, flow: 'authorize' }),
      withCode(410, 1103),
    )
  })

  test('denying an oob flow says so instead of redirecting', async () => {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain), { callback: 'oob' })
    assert.deepEqual(await denyAuthorization(t.domain, { token: rt.token, flow: 'authorize' }), { oob: true })
  })

  test('"already granted" needs authenticate, sign-in enabled, no force_login and a live token at the same level', async () => {
    const { user } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { isSignInEnabled: true, accessLevel: 'read-write' })
    const consent = await loadConsent(t.domain, { token: (await makeRequestToken(t.domain, app)).token, flow: 'authenticate' })
    const ask = (overrides: Partial<Parameters<typeof isAlreadyGranted>[1]> = {}) =>
      isAlreadyGranted(t.domain, { consent, flow: 'authenticate', userId: user.id, forceLogin: false, ...overrides })

    assert.equal(await ask(), false, 'no grant yet')
    await issueOrReuseAccessToken(t.domain, { appId: app.id, userId: user.id, accessLevel: 'read' }, { via: 'owner_token' })
    assert.equal(await ask(), false, 'a grant at another level does not count')
    const live = await issueOrReuseAccessToken(t.domain, { appId: app.id, userId: user.id, accessLevel: 'read-write' }, { via: 'owner_token' })
    assert.equal(await ask(), true)
    assert.equal(await ask({ flow: 'authorize' }), false, 'authorize always asks')
    assert.equal(await ask({ forceLogin: true }), false, 'force_login always asks')
    assert.equal(await ask({ userId: undefined }), false, 'nobody signed in')
    const withoutSignIn = { ...consent, app: { ...consent.app, isSignInEnabled: false } }
    assert.equal(await ask({ consent: withoutSignIn }), false, 'sign-in disabled')
    await t.domain.stores.accessTokens.revoke(live.token, clock.nowMs())
    assert.equal(await ask(), false, 'a revoked grant does not count')
  })

  test('addToQuery appends to a callback with or without a query of its own', () => {
    assert.equal(addToQuery('https://a.example/cb', [['denied', 't']]), 'https://a.example/cb?denied=t')
    assert.equal(addToQuery('https://a.example/cb?', [['denied', 't']]), 'https://a.example/cb?denied=t')
    assert.equal(addToQuery('https://a.example/cb?s=1+2', [['k', 'a b&']]), 'https://a.example/cb?s=1+2&k=a+b%26')
  })
  /** The consent rows of an app's audit trail, oldest first. */
  const auditOf = async (appId: string) => (await t.domain.stores.audit.list({ appId, limit: 20 })).filter((row) => row.event.startsWith('consent.')).reverse()

  test('the 200-character cut-off: a token of 200 characters is looked up, a longer one refused as unknown', async () => {
    const app = await makeApp(t.domain)
    // Tokens we issue are far shorter; these stored ones only mark where the cut-off lies.
    const atLimit = await makeRequestToken(t.domain, app, { token: 'a'.repeat(200) })
    const pastLimit = await makeRequestToken(t.domain, app, { token: 'b'.repeat(201) })
    assert.equal((await loadConsent(t.domain, { token: atLimit.token, flow: 'authorize' })).requestToken.token, atLimit.token)
    await assert.rejects(loadConsent(t.domain, { token: pastLimit.token, flow: 'authorize' }), withCode(404, 1101))
  })

  test('a used token says which status it has, for the logs', async () => {
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain), { status: 'denied' })
    await assert.rejects(loadConsent(t.domain, { token: rt.token, flow: 'authorize' }), (error: unknown) => {
      assert.ok(withCode(410, 1103)(error))
      assert.equal((error as ServiceError).detail, 'status denied')
      return true
    })
  })

  test('approving is audited: consent.granted with the flow, the level, the callback origin and whether it was automatic', async () => {
    const { user } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { callbackUrls: ['https://client.example/cb?state=secret'], accessLevel: 'read-write' })
    await approveAuthorization(t.domain, { token: (await makeRequestToken(t.domain, app)).token, userId: user.id, flow: 'authorize', address: '198.51.100.7' })
    await approveAuthorization(t.domain, { token: (await makeRequestToken(t.domain, app)).token, userId: user.id, flow: 'authenticate', isAutomatic: true })
    const rows = await auditOf(app.id)
    assert.deepEqual(
      rows.map((row) => [row.event, row.userId, row.address, row.detail]),
      [
        ['consent.granted', user.id, '198.51.100.7', { flow: 'authorize', access_level: 'read-write', callback: 'https://client.example', automatic: false }],
        ['consent.granted', user.id, null, { flow: 'authenticate', access_level: 'read-write', callback: 'https://client.example', automatic: true }],
      ],
    )
  })

  test('denying is audited: consent.denied with the flow, the level and the callback origin', async () => {
    const { user } = await makeUser(t.domain)
    const app = await makeApp(t.domain, { callbackUrls: ['https://client.example/cb'], accessLevel: 'read' })
    await denyAuthorization(t.domain, { token: (await makeRequestToken(t.domain, app)).token, flow: 'authenticate', userId: user.id, address: '198.51.100.8' })
    await denyAuthorization(t.domain, { token: (await makeRequestToken(t.domain, app, { callback: 'oob' })).token, flow: 'authorize' })
    const rows = await auditOf(app.id)
    assert.deepEqual(
      rows.map((row) => [row.event, row.userId, row.address, row.detail]),
      [
        ['consent.denied', user.id, '198.51.100.8', { flow: 'authenticate', access_level: 'read', callback: 'https://client.example' }],
        ['consent.denied', null, null, { flow: 'authorize', access_level: 'read', callback: 'oob' }],
      ],
    )
  })

  /**
   * The domain as one tab sees it while another acts: `meanwhile` runs to its end after this call's
   * consent check and before its unit of work opens, the moment two clicks on one token can overlap.
   * The stores are the real ones; only the order is fixed, the same on SQLite and PostgreSQL.
   */
  const whileAnotherTab = (meanwhile: () => Promise<unknown>, clock = t.domain.clock) => ({
    ...t.domain,
    clock,
    stores: {
      ...t.domain.stores,
      transaction: async <T>(work: Parameters<typeof t.domain.stores.transaction<T>>[0]): Promise<T> => {
        await meanwhile()
        return t.domain.stores.transaction(work)
      },
    },
  })

  test('a token approved or denied in another tab after this one loaded it: 410 "already used", one audit row', async () => {
    const { user } = await makeUser(t.domain)
    const app = await makeApp(t.domain)
    const act = (deps: typeof t.domain, action: 'approve' | 'deny', token: string) =>
      action === 'approve' ? approveAuthorization(deps, { token, userId: user.id, flow: 'authorize' }) : denyAuthorization(deps, { token, flow: 'authorize' })
    for (const [mine, theirs] of [['approve', 'deny'], ['deny', 'approve']] as const) {
      const rt = await makeRequestToken(t.domain, app)
      const thisTab = whileAnotherTab(() => act(t.domain, theirs, rt.token))
      await assert.rejects(act(thisTab, mine, rt.token), (error: unknown) => {
        assert.ok(withCode(410, 1103)(error), String(error))
        assert.equal((error as ServiceError).detail, undefined, 'refused by the change itself, after the consent check')
        return true
      })
    }
    // Only the other tabs' changes were recorded.
    assert.deepEqual((await auditOf(app.id)).map((row) => row.event), ['consent.denied', 'consent.granted'])
  })

  test('a token that expires between the consent check and the approval or denial is 410 "expired", and stays unapproved', async () => {
    const { user } = await makeUser(t.domain)
    const app = await makeApp(t.domain)
    for (const act of ['approve', 'deny'] as const) {
      const rt = await makeRequestToken(t.domain, app)
      // The person clicks as the token's time runs out: the check reads the clock just before
      // expiry, every later reading is at the expiry instant itself (which is already too late).
      let reads = 0
      const deps = { ...t.domain, clock: { nowMs: () => (reads++ === 0 ? rt.expiresAtMs - 1 : rt.expiresAtMs) } }
      const call = act === 'approve' ? approveAuthorization(deps, { token: rt.token, userId: user.id, flow: 'authorize' }) : denyAuthorization(deps, { token: rt.token, flow: 'authorize' })
      await assert.rejects(call, withCode(410, 1102), act)
      assert.equal((await t.domain.stores.requestTokens.findByToken(rt.token))?.status, 'issued', act)
    }
    assert.deepEqual(await auditOf(app.id), [])
  })

  test('a token approved in another tab, and expired since, is 410 "already used", not "expired"', async () => {
    const { user } = await makeUser(t.domain)
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    // This tab's check passes just before expiry; by the time it hears its approval lost, the
    // token's time is up too. What the token was, is used.
    let reads = 0
    const clock = { nowMs: () => (reads++ === 0 ? rt.expiresAtMs - 1 : rt.expiresAtMs) }
    const thisTab = whileAnotherTab(() => approveAuthorization(t.domain, { token: rt.token, userId: user.id, flow: 'authorize' }), clock)
    await assert.rejects(denyAuthorization(thisTab, { token: rt.token, flow: 'authorize' }), withCode(410, 1103))
  })
  test('a token cleaned up as expired between the consent check and the approval is 404 "not valid"', async () => {
    const { user } = await makeUser(t.domain)
    const rt = await makeRequestToken(t.domain, await makeApp(t.domain))
    let reads = 0
    const clock = { nowMs: () => (reads++ === 0 ? rt.expiresAtMs - 1 : rt.expiresAtMs) }
    // The periodic clean-up runs as the token's time runs out.
    const thisTab = whileAnotherTab(() => t.domain.stores.requestTokens.deleteExpired(rt.expiresAtMs + 1), clock)
    await assert.rejects(approveAuthorization(thisTab, { token: rt.token, userId: user.id, flow: 'authorize' }), withCode(404, 1101))
  })
})
