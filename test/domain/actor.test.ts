import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { adminTokenActor, personActor, withAuditActor } from '../../src/domain/actor.ts'
import { createAdminToken } from '../../src/domain/admin/admin-tokens.ts'
import { recordAudit } from '../../src/domain/audit.ts'
import { updateApp } from '../../src/domain/registry/apps.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { openTestDomain, testClock, type TestDomain } from '../helpers/test-domain.ts'

// Who did it: the domain as one actor sees it names that actor in every audit row written through
// it (directly, and inside units of work), and leaves the rest of the row and the rest of the
// domain as they were.

const START_MS = Date.UTC(2026, 0, 1)
let t: TestDomain
before(async () => {
  t = await openTestDomain({ clock: testClock(START_MS) })
})
after(() => t.close())

const newest = async () => (await t.domain.stores.audit.list({ limit: 1 }))[0]

describe('the actors\' names', () => {
  test('a person is user:<id>; the admin API is admin_token:<the token\'s id>', () => {
    assert.equal(personActor('1234'), 'user:1234')
    assert.equal(adminTokenActor('987'), 'admin_token:987')
  })
})

describe('withAuditActor', () => {
  test('a row recorded directly names the actor, its own detail kept, everything else as given', async () => {
    const acting = withAuditActor(t.domain, personActor('42'))
    await recordAudit(acting, { event: 'sign_in.succeeded', appId: '7', userId: '42', address: '192.0.2.1', detail: { via: 'form' } })
    assert.deepEqual(await newest(), { atMs: START_MS, event: 'sign_in.succeeded', appId: '7', userId: '42', address: '192.0.2.1', detail: { via: 'form', actor: 'user:42' } })
    await recordAudit(acting, { event: 'sign_in.failed' })
    assert.deepEqual((await newest())?.detail, { actor: 'user:42' }, 'a row without detail gets one naming the actor')
  })

  test('a row written by a use case inside a unit of work names the actor', async () => {
    const acting = withAuditActor(t.domain, adminTokenActor('5'))
    const { record } = await createAdminToken(acting, 'made by an admin')
    assert.deepEqual((await newest())?.detail, { admin_token_id: record.id, name: 'made by an admin', actor: 'admin_token:5' })
    // The unit's other stores are the real ones: the token was kept.
    assert.deepEqual((await t.domain.stores.adminTokens.list()).find((r) => r.id === record.id), record)
  })

  test('the domain it was made from is unchanged: its rows name no actor', async () => {
    const app = await makeApp(t.domain)
    withAuditActor(t.domain, personActor(app.ownerId))
    await updateApp(t.domain, app.id, { description: 'by the CLI' })
    assert.deepEqual((await newest())?.detail, { fields: ['description'] })
    // The twin: the same change through the acting domain names the person, and reads the same stores.
    const acting = withAuditActor(t.domain, personActor(app.ownerId))
    assert.equal((await acting.stores.apps.findById(app.id))?.description, 'by the CLI')
    await updateApp(acting, app.id, { description: 'by its owner' })
    assert.deepEqual((await newest())?.detail, { fields: ['description'], actor: `user:${app.ownerId}` })
    assert.equal(acting.clock, t.domain.clock)
  })
})
