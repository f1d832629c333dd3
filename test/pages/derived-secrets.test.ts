import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import pino from 'pino'
import { composeApp } from '../../src/composition/apps.ts'
import { deriveSecret, newKeyring } from '../../src/storage/sealing/keyring.ts'
import { createSealer } from '../../src/storage/sealing/sealer.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-app.ts'
import { Browser } from '../helpers/browser.ts'
import { makeRequestToken, openAndAllow } from '../helpers/consent-pages.ts'

/** RFC 5869 written out from its §2.2 and §2.3, as an oracle independent of node:crypto's hkdf. */
function hkdfSha256(ikm: Buffer, salt: string, info: string, length: number): Buffer {
  const prk = createHmac('sha256', salt).update(ikm).digest()
  const blocks: Buffer[] = []
  let previous = Buffer.alloc(0)
  for (let i = 1; Buffer.concat(blocks).length < length; i++) {
    previous = createHmac('sha256', prk).update(Buffer.concat([previous, Buffer.from(info), Buffer.from([i])])).digest()
    blocks.push(previous)
  }
  return Buffer.concat(blocks).subarray(0, length)
}

describe('secrets derived from the master keyring are independent (HKDF, RFC 5869)', () => {
  test('each purpose gets its own HKDF output; none is a lookup hash of its label', () => {
    const keyring = newKeyring()
    const cookie = deriveSecret(keyring, 'cookie-signing')
    assert.equal(cookie, hkdfSha256(keyring.indexKey, 'latchkey keyring v1', 'latchkey cookie-signing', 32).toString('base64url'))
    assert.equal(deriveSecret(keyring, 'cookie-signing'), cookie, 'the same keyring gives the same secret')
    assert.notEqual(deriveSecret(keyring, 'something-else'), cookie)
    assert.notEqual(deriveSecret(newKeyring(), 'cookie-signing'), cookie, 'another keyring, another secret')
    const sealer = createSealer(() => keyring)
    for (const label of ['cookie-signing', 'latchkey cookie-signing', 'latchkey derived secret: cookie']) {
      assert.notEqual(sealer.index(label), cookie)
    }
  })
})

describe('sessions signed before the move to HKDF keep working', () => {
  let t: TestDomain
  before(async () => {
    t = await openTestDomain()
  })
  after(() => t.close())

  const appSigningWith = (cookieSecret: string | string[]) =>
    composeApp({ domain: t.domain, logger: pino({ level: 'silent' }), http: { dev: true, publicUrl: undefined, trustProxy: [], cookieSecret } })
  /** Whether `app` takes the cookies `browser` keeps (from another app) for a signed-in session. */
  const isSignedIn = async (app: Awaited<ReturnType<typeof appSigningWith>>, browser: Browser, consumer: Parameters<typeof makeRequestToken>[1]) =>
    /You are signed in as/.test((await browser.copy(app).get(`/oauth/authorize?oauth_token=${(await makeRequestToken(t.domain, consumer)).token}`)).body)

  test('a cookie signed with the old derived secret is accepted; new cookies are signed with the HKDF secret', async () => {
    const { user, password } = await makeUser(t.domain)
    const consumer = await makeApp(t.domain)
    const legacy = t.domain.runtime.legacyDerivedSecret('cookie')
    const derived = t.domain.runtime.deriveSecret('cookie-signing')
    assert.notEqual(derived, legacy)
    const before = await appSigningWith(legacy)
    const after = await appSigningWith([derived, legacy])
    const hkdfOnly = await appSigningWith(derived)
    try {
      const oldBrowser = new Browser(before)
      await openAndAllow(oldBrowser, '/oauth/authorize', (await makeRequestToken(t.domain, consumer)).token, { username: user.screenName, password })
      assert.equal(await isSignedIn(after, oldBrowser, consumer), true, 'the old session survives the upgrade')
      assert.equal(await isSignedIn(hkdfOnly, oldBrowser, consumer), false, 'only because the old secret is still accepted')

      const newBrowserSession = new Browser(after)
      await openAndAllow(newBrowserSession, '/oauth/authorize', (await makeRequestToken(t.domain, consumer)).token, { username: user.screenName, password })
      assert.equal(await isSignedIn(hkdfOnly, newBrowserSession, consumer), true, 'a new session is signed with the HKDF secret')
    } finally {
      await Promise.all([before.close(), after.close(), hkdfOnly.close()])
    }
  })
})
