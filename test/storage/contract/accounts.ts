import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { ExternalSignInRecord } from '../../../src/storage/account-types.ts'
import { NOW, userRecord, unique, type ContractKit } from './fixtures.ts'

const signIn = (overrides: Partial<ExternalSignInRecord> = {}): ExternalSignInRecord => ({
  id: `challenge-${unique()}`,
  kind: 'delegation',
  provider: 'login',
  browser: `browser-${unique()}`,
  returnTo: '/oauth/authorize?oauth_token=abc',
  forceLogin: false,
  createdAtMs: NOW,
  expiresAtMs: NOW + 600_000,
  ...overrides,
})

/** The storage contract's part on existing accounts: e-mail addresses, identity links, sign-ins in progress (src/storage/account-types.ts). */
export function accountsContract({ withStores }: ContractKit): void {
  describe('existing accounts', () => {
    test('a person is found by e-mail address in any case; an address names one person at most', async () => {
      await withStores(async (s) => {
        const ada = userRecord({ email: 'Ada@Example.org' })
        assert.equal(await s.users.create(ada), true)
        assert.deepEqual(await s.users.findByEmail('ada@example.ORG'), ada)
        assert.equal(await s.users.findByEmail('bob@example.org'), undefined)
        assert.equal(await s.users.create(userRecord({ email: 'ADA@example.org' })), false, 'the same address in another case')
        const noEmail = userRecord()
        assert.equal(await s.users.create(noEmail), true)
        assert.equal(await s.users.create(userRecord()), true, 'people without an address do not collide')
        assert.equal((await s.users.findById(noEmail.id))!.email, undefined)
      })
    })

    test('an identity is linked once, found, listed per person, touched and removed', async () => {
      await withStores(async (s) => {
        const user = userRecord()
        await s.users.create(user)
        const link = { provider: 'corp', subject: 'sub:1|x', userId: user.id, createdAtMs: NOW }
        assert.equal(await s.transaction((tx) => tx.identityLinks.create(link)), true)
        assert.equal(await s.identityLinks.create({ ...link, userId: '1' }), false, 'a subject is linked to one person')
        assert.deepEqual(await s.identityLinks.find('corp', 'sub:1|x'), link)
        assert.equal(await s.identityLinks.find('corp', 'sub:1'), undefined)
        assert.equal(await s.identityLinks.find('other', 'sub:1|x'), undefined, 'the provider is part of the key')
        await s.identityLinks.create({ provider: 'login', subject: 'sub:1|x', userId: user.id, createdAtMs: NOW + 1 })
        await s.identityLinks.touch('corp', 'sub:1|x', NOW + 5)
        assert.deepEqual(await s.identityLinks.listForUser(user.id), [{ ...link, lastSignInAtMs: NOW + 5 }, { provider: 'login', subject: 'sub:1|x', userId: user.id, createdAtMs: NOW + 1 }])
        assert.equal(await s.transaction((tx) => tx.identityLinks.remove('corp', 'sub:1|x')), true)
        assert.equal(await s.identityLinks.remove('corp', 'sub:1|x'), false)
        assert.equal(await s.identityLinks.find('corp', 'sub:1|x'), undefined)
      })
    })

    test('a sign-in in progress reads back with its secrets, is answered once and consumed once, by its browser only', async () => {
      await withStores(async (s) => {
        const oidc = signIn({ kind: 'oidc', provider: 'corp', appId: '42', loginHint: 'ada', forceLogin: true, secrets: { codeVerifier: 'v'.repeat(43), nonce: 'n0nce' } })
        await s.externalSignIns.create(oidc)
        assert.deepEqual(await s.externalSignIns.consume(oidc.id, oidc.browser, NOW + 1), { record: oidc })
        assert.deepEqual(await s.externalSignIns.consume(oidc.id, oidc.browser, NOW + 2), { refused: 'used' })

        const challenge = signIn()
        await s.externalSignIns.create(challenge)
        const accepted = { accepted: { subject: 'u-1', screenName: 'ada', remember: true }, verifierSha256: 'ab'.repeat(32) }
        assert.equal(await s.externalSignIns.settle(challenge.id, accepted, NOW + 1), true)
        assert.equal(await s.externalSignIns.settle(challenge.id, { rejected: { error: 'access_denied' } }, NOW + 2), false, 'answered once')
        assert.deepEqual((await s.externalSignIns.find(challenge.id))!.outcome, accepted)
        assert.deepEqual(await s.externalSignIns.consume(challenge.id, 'another browser', NOW + 3), { refused: 'other_browser' })
        assert.deepEqual(await s.externalSignIns.consume(challenge.id, challenge.browser, NOW + 4), { refused: 'used' }, 'another browser spent it')

        const late = signIn()
        await s.externalSignIns.create(late)
        assert.equal(await s.externalSignIns.settle(late.id, accepted, late.expiresAtMs), false, 'expired')
        assert.deepEqual(await s.externalSignIns.consume(late.id, late.browser, late.expiresAtMs), { refused: 'expired' })
        assert.deepEqual(await s.externalSignIns.consume('nothing', late.browser, NOW), { refused: 'unknown' })
        assert.equal(await s.externalSignIns.find('nothing'), undefined)
        assert.equal(await s.externalSignIns.deleteExpired(late.expiresAtMs + 1), 3)
        assert.equal(await s.externalSignIns.find(late.id), undefined)
      })
    })

    test('racing consumers of one sign-in: exactly one wins', async () => {
      await withStores(async (s) => {
        const record = signIn()
        await s.externalSignIns.create(record)
        const outcomes = await Promise.all(Array.from({ length: 8 }, () => s.externalSignIns.consume(record.id, record.browser, NOW + 1)))
        assert.equal(outcomes.filter((o) => 'record' in o).length, 1)
      })
    })
  })
}
