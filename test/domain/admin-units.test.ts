import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createAdminToken, findLiveAdminToken, revokeAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { revokeAuthorization, revokeBearerToken, updateUser } from '../../src/domain/admin/people.ts'
import type { DomainDeps } from '../../src/domain/deps.ts'
import { handOutBearerToken } from '../../src/domain/oauth2/bearer-token.ts'
import { rotateAppKeys } from '../../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-domain.ts'

/**
 * Issue 12, point 1, for the admin API's writes: each change and its audit row are one unit of work.
 * The audit insert is made to fail in the database itself (a NOT NULL column left null), on SQLite
 * and on PostgreSQL: the change must be gone too, and the caller must see the failure.
 */

let t: TestDomain
before(async () => {
  t = await openTestDomain()
})
after(() => t.close())

/** The same domain, except that every audit row a unit of work writes is refused by the database. */
function auditInsertFails(domain: DomainDeps): DomainDeps {
  return {
    ...domain,
    stores: {
      ...domain.stores,
      transaction: (work) =>
        domain.stores.transaction((tx) =>
          work({ ...tx, audit: { ...tx.audit, record: (event) => tx.audit.record({ ...event, event: null as never }) } }),
        ),
    },
  }
}

const auditRows = async (event: string) => (await t.domain.stores.audit.list({ limit: 10_000 })).filter((e) => e.event === event).length

async function assertRolledBack(event: string, change: (domain: DomainDeps) => Promise<unknown>): Promise<void> {
  const before = await auditRows(event)
  await assert.rejects(change(auditInsertFails(t.domain)), (error: unknown) => {
    assert.ok(error instanceof Error)
    assert.doesNotMatch(error.message, /inside a unit of work/, 'a real database refusal, not a misuse')
    return true
  })
  assert.equal(await auditRows(event), before, `no ${event} row`)
}

describe('admin writes and their audit rows are one unit of work', () => {
  test('admin token create: a failed audit insert keeps no token', async () => {
    await assertRolledBack('admin_token.created', (domain) => createAdminToken(domain, 'rolled back'))
    const names = (await t.domain.stores.adminTokens.list()).map((r) => r.name)
    assert.ok(!names.includes('rolled back'))
    // The twin: with a working audit store the same call keeps the token and its row.
    const kept = await createAdminToken(t.domain, 'kept')
    assert.equal((await findLiveAdminToken(t.domain, kept.token))?.id, kept.record.id)
    assert.equal((await t.domain.stores.audit.list({ limit: 10_000 })).find((e) => e.event === 'admin_token.created' && e.detail?.admin_token_id === kept.record.id)?.event, 'admin_token.created')
  })

  test('admin token revoke: a failed audit insert leaves the token live', async () => {
    const { record, token } = await createAdminToken(t.domain, 'to revoke')
    await assertRolledBack('admin_token.revoked', (domain) => revokeAdminToken(domain, record.id))
    assert.equal((await findLiveAdminToken(t.domain, token))?.id, record.id)
    await revokeAdminToken(t.domain, record.id)
    assert.equal(await findLiveAdminToken(t.domain, token), undefined)
  })

  test('user update: a failed audit insert keeps the old name and leaves the user enabled', async () => {
    const app = await makeApp(t.domain)
    await assertRolledBack('user.updated', (domain) => updateUser(domain, app.ownerId, { name: 'Never Kept', disabled: true }))
    const user = await t.domain.stores.users.findById(app.ownerId)
    assert.notEqual(user?.name, 'Never Kept')
    assert.ok(!user?.isDisabled)
    assert.equal((await updateUser(t.domain, app.ownerId, { name: 'Kept' })).name, 'Kept')
  })

  test('authorization revocation: a failed audit insert leaves the access token live', async () => {
    const app = await makeApp(t.domain)
    const { token } = await issueOwnerToken(t.domain, app.id)
    await assertRolledBack('authorization.revoked', (domain) => revokeAuthorization(domain, app.ownerId, app.id))
    assert.equal((await t.domain.stores.accessTokens.findByToken(token.token))?.revokedAtMs, null)
    await revokeAuthorization(t.domain, app.ownerId, app.id)
    assert.notEqual((await t.domain.stores.accessTokens.findByToken(token.token))?.revokedAtMs, null)
  })

  test('bearer token revocation: a failed audit insert leaves the bearer token live', async () => {
    const app = await makeApp(t.domain)
    const { token } = await handOutBearerToken(t.domain, app.id, null)
    await assertRolledBack('bearer_token.invalidated', (domain) => revokeBearerToken(domain, app.id))
    assert.equal((await t.domain.stores.bearerTokens.findLive(app.id))?.token, token)
    await revokeBearerToken(t.domain, app.id)
    assert.equal(await t.domain.stores.bearerTokens.findLive(app.id), undefined)
  })

  test('key rotation: a failed audit insert keeps the old keys, the tokens and no previous pair', async () => {
    const app = await makeApp(t.domain)
    const { token } = await issueOwnerToken(t.domain, app.id)
    await assertRolledBack('app.keys_rotated', (domain) => rotateAppKeys(domain, app.id, { graceSeconds: 60, revokeTokens: true }))
    assert.equal((await t.domain.stores.apps.findById(app.id))?.consumerKey, app.consumerKey)
    assert.equal((await t.domain.stores.apps.findByConsumerKey(app.consumerKey))?.previousKeyExpiresAtMs, undefined, 'still the current key, no previous pair')
    assert.equal((await t.domain.stores.accessTokens.findByToken(token.token))?.revokedAtMs, null)
    const rotated = await rotateAppKeys(t.domain, app.id, { graceSeconds: 60, revokeTokens: true })
    assert.notEqual(rotated.consumerKey, app.consumerKey)
    assert.notEqual((await t.domain.stores.accessTokens.findByToken(token.token))?.revokedAtMs, null)
  })
})
