import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createAdminToken, findLiveAdminToken, listAdminTokens, revokeAdminToken } from '../../../src/domain/admin/admin-tokens.ts'
import type { DomainDeps } from '../../../src/domain/deps.ts'
import { E } from '../../../src/errors/catalogue.ts'
import { recordingObserver } from '../../helpers/recording-observer.ts'
import { assertRefusedWith } from '../../helpers/service-refusal.ts'
import { openTestDomain, testClock, type TestDomain } from '../../helpers/test-domain.ts'

// The admin tokens' use cases (the CLI's `admin-token` commands, the admin API's authentication),
// on real storage: what each writes, what the trail and the metrics are told, what each refuses.

const START_MS = Date.UTC(2026, 0, 1)
const clock = testClock(START_MS)
const observer = recordingObserver()
let t: TestDomain
let deps: DomainDeps
before(async () => {
  t = await openTestDomain({ clock })
  deps = { ...t.domain, observe: observer }
})
after(() => t.close())

/** The audit rows about this admin token, oldest first. */
const rowsAbout = async (id: string) => (await t.domain.stores.audit.list({ limit: 10_000 })).filter((e) => e.detail?.admin_token_id === id).reverse()

/** The domain, with a count of the admin-token lookups that reached the store (each hashes the token). */
function countingLookups(): { deps: DomainDeps; lookups: () => number } {
  let lookups = 0
  const adminTokens = { ...t.domain.stores.adminTokens, findByToken: (token: string) => (lookups++, t.domain.stores.adminTokens.findByToken(token)) }
  return { deps: { ...t.domain, stores: { ...t.domain.stores, adminTokens } }, lookups: () => lookups }
}

/** The token with its last character changed to another one of the alphabet. */
const lastCharChanged = (token: string) => token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')

describe('createAdminToken', () => {
  test('answers the record and a token lkadm_ + 43 letters or digits; keeps both; one audit row; tells the metrics', async () => {
    observer.told.length = 0
    clock.advance(1000)
    const { record, token } = await createAdminToken(deps, 'deploy bot')
    assert.match(token, /^lkadm_[A-Za-z0-9]{43}$/)
    assert.match(record.id, /^\d+$/)
    assert.deepEqual(record, { id: record.id, name: 'deploy bot', createdAtMs: clock.nowMs(), revokedAtMs: null })
    assert.deepEqual(await findLiveAdminToken(t.domain, token), record)
    assert.deepEqual((await listAdminTokens(t.domain)).find((r) => r.id === record.id), record)
    assert.deepEqual(await rowsAbout(record.id), [
      { atMs: clock.nowMs(), event: 'admin_token.created', appId: null, userId: null, address: null, detail: { admin_token_id: record.id, name: 'deploy bot' } },
    ])
    assert.deepEqual(observer.told, ['issued:admin_token'])
  })

  test('each token is new, and only its own token finds a record', async () => {
    const a = await createAdminToken(t.domain, 'a')
    const b = await createAdminToken(t.domain, 'b')
    assert.notEqual(a.token, b.token)
    assert.notEqual(a.record.id, b.record.id)
    assert.equal((await findLiveAdminToken(t.domain, b.token))?.id, b.record.id)
  })

  test('the name is trimmed, and must then be 1 to 64 characters', async () => {
    assert.equal((await createAdminToken(t.domain, '  padded\t')).record.name, 'padded')
    assert.equal((await createAdminToken(t.domain, 'x')).record.name, 'x')
    assert.equal((await createAdminToken(t.domain, 'n'.repeat(64))).record.name, 'n'.repeat(64))
    assert.equal((await createAdminToken(t.domain, ` ${'s'.repeat(64)} `)).record.name, 's'.repeat(64))
  })

  test('refuses an empty, blank or too long name (400 code 1003), and keeps no token, row or count', async () => {
    for (const name of ['', '   ', 'l'.repeat(65)]) {
      const tokensBefore = (await listAdminTokens(t.domain)).length
      const rowsBefore = (await t.domain.stores.audit.list({ limit: 10_000 })).length
      observer.told.length = 0
      await assertRefusedWith(createAdminToken(deps, name), E.invalidParameter, 'admin token name must be 1 to 64 characters')
      assert.equal((await listAdminTokens(t.domain)).length, tokensBefore, JSON.stringify(name))
      assert.equal((await t.domain.stores.audit.list({ limit: 10_000 })).length, rowsBefore)
      assert.deepEqual(observer.told, [])
    }
  })
})

describe('listAdminTokens', () => {
  test('lists every token in id order, the revoked ones too, and never the token itself', async () => {
    const live = await createAdminToken(t.domain, 'listed live')
    const revoked = await createAdminToken(t.domain, 'listed revoked')
    await revokeAdminToken(t.domain, revoked.record.id)
    const listed = await listAdminTokens(t.domain)
    const ids = listed.map((r) => r.id)
    assert.deepEqual(ids, [...ids].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1)))
    assert.deepEqual(listed.find((r) => r.id === live.record.id), live.record)
    assert.equal(listed.find((r) => r.id === revoked.record.id)?.revokedAtMs, clock.nowMs())
    assert.ok(!JSON.stringify(listed).includes(live.token))
  })
})

describe('revokeAdminToken', () => {
  test('the token is refused from then on, listed as revoked now; one audit row; tells the metrics', async () => {
    const { record, token } = await createAdminToken(t.domain, 'to revoke')
    clock.advance(5000)
    observer.told.length = 0
    await revokeAdminToken(deps, record.id)
    assert.equal(await findLiveAdminToken(t.domain, token), undefined)
    assert.deepEqual((await listAdminTokens(t.domain)).find((r) => r.id === record.id), { ...record, revokedAtMs: clock.nowMs() })
    assert.deepEqual((await rowsAbout(record.id)).map((e) => [e.event, e.atMs, e.detail]), [
      ['admin_token.created', clock.nowMs() - 5000, { admin_token_id: record.id, name: 'to revoke' }],
      ['admin_token.revoked', clock.nowMs(), { admin_token_id: record.id }],
    ])
    assert.deepEqual(observer.told, ['invalidated:admin_token:admin'])
  })

  test('refuses an unknown id and a revoked one (404 code 1004), with no row and no count', async () => {
    const { record } = await createAdminToken(t.domain, 'revoked twice')
    await revokeAdminToken(t.domain, record.id)
    for (const id of [record.id, '999999999']) {
      observer.told.length = 0
      await assertRefusedWith(revokeAdminToken(deps, id), E.notFound, `no live admin token with id ${id}`)
      assert.deepEqual(observer.told, [])
    }
    assert.deepEqual((await rowsAbout(record.id)).map((e) => e.event), ['admin_token.created', 'admin_token.revoked'])
  })
})

describe('findLiveAdminToken', () => {
  test('finds a live token; not a revoked one, nor one a character off', async () => {
    const { record, token } = await createAdminToken(t.domain, 'lookup')
    assert.deepEqual(await findLiveAdminToken(t.domain, token), record)
    assert.equal(await findLiveAdminToken(t.domain, lastCharChanged(token)), undefined)
    await revokeAdminToken(t.domain, record.id)
    assert.equal(await findLiveAdminToken(t.domain, token), undefined)
  })

  test('a string that cannot be an admin token is refused without a lookup; one of the right shape is looked up', async () => {
    const { token } = await createAdminToken(t.domain, 'shapes')
    const counting = countingLookups()
    const body = token.slice('lkadm_'.length)
    const malformed = [
      '',
      body,
      `lkadm_${body.slice(1)}`,
      `${token}A`,
      `x${token}`,
      `LKADM_${body}`,
      `lkadm_${body.slice(1)}-`,
      `lkadm_${body.slice(1)}é`,
      `${token}\n`,
      ` ${token}`,
    ]
    for (const presented of malformed) assert.equal(await findLiveAdminToken(counting.deps, presented), undefined, JSON.stringify(presented))
    assert.equal(counting.lookups(), 0)
    // The twins: well-formed strings are looked up, ours found, a stranger's not.
    assert.equal((await findLiveAdminToken(counting.deps, token))?.name, 'shapes')
    assert.equal(await findLiveAdminToken(counting.deps, `lkadm_${'0'.repeat(21)}${'z'.repeat(11)}${'Z'.repeat(11)}`), undefined)
    assert.equal(counting.lookups(), 2)
  })
})
