import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { regenerateClientSecret, setOAuth2Client } from '../../../src/domain/oauth2-user/clients.ts'
import { authenticateOAuth2Client } from '../../../src/domain/oauth2-user/client-authentication.ts'
import type { DomainDeps } from '../../../src/domain/deps.ts'
import { updateUser } from '../../../src/domain/admin/people.ts'
import { updateApp } from '../../../src/domain/registry/apps.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { openTestDomain, testClock, type TestDomain } from '../../helpers/test-domain.ts'

// An app's OAuth 2.0 client (src/domain/oauth2-user/clients.ts) on real storage: what turning it on,
// switching, regenerating its secret and turning it off do to its grants and its credentials.

const NOW = Date.UTC(2026, 0, 1)
const clock = testClock(NOW)
let t: TestDomain
let deps: DomainDeps
before(async () => {
  t = await openTestDomain({ clock })
  deps = t.domain
})
after(() => t.close())

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
const authenticates = (clientId: string, secret: string) =>
  authenticateOAuth2Client(deps, { authorization: basic(clientId, secret), params: [] }).then(
    () => true,
    () => false,
  )

/** A grant of a person to the app, as a code exchange would make it. */
async function grantOf(appId: string, userId?: string) {
  const user = userId ? { id: userId } : (await makeUser(deps)).user
  const grant = { id: deps.newId(), appId, userId: user.id, scopes: ['tweet.read'], createdAtMs: NOW, revokedAtMs: null }
  await deps.stores.oauth2Grants.create(grant, [{ token: `access-${grant.id}`, record: { kind: 'access', grantId: grant.id, createdAtMs: NOW, expiresAtMs: NOW + 7_200_000, spentAtMs: null } }], `code-${grant.id}`)
  return grant
}
const isLive = async (grantId: string) => (await deps.stores.oauth2Grants.findToken(`access-${grantId}`))?.grant.revokedAtMs === null

describe("an app's OAuth 2.0 client", () => {
  test('regenerating the secret: the new one authenticates, the old one no longer, and every grant ends', async () => {
    const app = await makeApp(deps)
    const made = await setOAuth2Client(deps, { appId: app.id, setting: 'confidential' })
    const clientId = made.client!.clientId
    const grant = await grantOf(app.id)
    assert.equal(await authenticates(clientId, made.newSecret!), true)
    const regenerated = await regenerateClientSecret(deps, { appId: app.id })
    assert.ok(regenerated?.newSecret)
    assert.notEqual(regenerated.newSecret, made.newSecret)
    assert.equal(regenerated.client?.clientId, clientId, 'the client id stays')
    assert.equal(await authenticates(clientId, regenerated.newSecret), true)
    assert.equal(await authenticates(clientId, made.newSecret!), false)
    assert.equal(await isLive(grant.id), false)
  })

  test('regenerating with a grace period: both secrets authenticate until it ends, then only the new one; the grants stay', async () => {
    const app = await makeApp(deps)
    const made = await setOAuth2Client(deps, { appId: app.id, setting: 'confidential' })
    const clientId = made.client!.clientId
    const grant = await grantOf(app.id)
    const regenerated = await regenerateClientSecret(deps, { appId: app.id, graceSeconds: 3600 })
    assert.equal(regenerated?.client?.previousSecretExpiresAtMs, clock.nowMs() + 3_600_000)
    assert.equal(await authenticates(clientId, regenerated!.newSecret!), true)
    assert.equal(await authenticates(clientId, made.newSecret!), true, 'the old secret, within its grace period')
    assert.equal(await authenticates(clientId, 'not-either-secret'), false)
    assert.equal(await isLive(grant.id), true, 'the grants stay')
    clock.advance(3_600_000)
    assert.equal(await authenticates(clientId, made.newSecret!), false, 'the old secret, once its grace period has ended')
    assert.equal(await authenticates(clientId, regenerated!.newSecret!), true)
    const audit = await deps.stores.audit.list({ appId: app.id, limit: 1 })
    assert.deepEqual(audit[0]?.detail, { secret_regenerated: true, grants_ended: false, grace_seconds: 3600 })
  })

  test('a grace period is 1 s to 7 days, in whole seconds; outside it nothing changes', async () => {
    const app = await makeApp(deps)
    const made = await setOAuth2Client(deps, { appId: app.id, setting: 'confidential' })
    for (const graceSeconds of [0, 1.5, 604_801]) {
      await assert.rejects(regenerateClientSecret(deps, { appId: app.id, graceSeconds }), /grace must be a whole number of seconds from 1 to 604800/)
    }
    assert.deepEqual(await deps.stores.oauth2Clients.findByAppId(app.id), made.client)
    assert.ok(await regenerateClientSecret(deps, { appId: app.id, graceSeconds: 604_800 }))
  })

  test('a second regeneration without grace ends the first one\'s grace at once', async () => {
    const app = await makeApp(deps)
    const made = await setOAuth2Client(deps, { appId: app.id, setting: 'confidential' })
    const first = await regenerateClientSecret(deps, { appId: app.id, graceSeconds: 3600 })
    const second = await regenerateClientSecret(deps, { appId: app.id })
    const clientId = made.client!.clientId
    assert.deepEqual([await authenticates(clientId, made.newSecret!), await authenticates(clientId, first!.newSecret!), await authenticates(clientId, second!.newSecret!)], [false, false, true])
  })

  test('disabling the person ends their grants (enabling them again brings none back); other people\'s stay', async () => {
    const app = await makeApp(deps)
    await setOAuth2Client(deps, { appId: app.id, setting: 'public' })
    const { user } = await makeUser(deps)
    const theirs = await grantOf(app.id, user.id)
    const others = await grantOf(app.id)
    await updateUser(deps, user.id, { disabled: true })
    await updateUser(deps, user.id, { disabled: false })
    assert.deepEqual([await isLive(theirs.id), await isLive(others.id)], [false, true])
    const audit = await deps.stores.audit.list({ userId: user.id, limit: 2 })
    assert.deepEqual(audit.map((row) => row.detail?.oauth2_grants_ended), [undefined, 1])
  })

  test("suspending the app ends its grants (lifting it brings none back); another app's stay", async () => {
    const app = await makeApp(deps)
    const other = await makeApp(deps)
    const grant = await grantOf(app.id)
    const elsewhere = await grantOf(other.id)
    await updateApp(deps, app.id, { isSuspended: true })
    await updateApp(deps, app.id, { isSuspended: false })
    assert.deepEqual([await isLive(grant.id), await isLive(elsewhere.id)], [false, true])
    const again = await grantOf(app.id)
    await updateApp(deps, app.id, { name: 'Renamed, not suspended' })
    assert.equal(await isLive(again.id), true, 'a change that is not a suspension ends nothing')
  })

  test('a public client has no secret to regenerate; the same setting again changes nothing, its grants included', async () => {
    const app = await makeApp(deps)
    const made = await setOAuth2Client(deps, { appId: app.id, setting: 'public' })
    assert.equal(made.newSecret, undefined)
    assert.equal(await regenerateClientSecret(deps, { appId: app.id }), undefined)
    const grant = await grantOf(app.id)
    const again = await setOAuth2Client(deps, { appId: app.id, setting: 'public' })
    assert.deepEqual(again.client, made.client)
    assert.equal(await isLive(grant.id), true)
  })

  test('switching the type or turning it off ends every grant; off removes the client', async () => {
    const app = await makeApp(deps)
    const made = await setOAuth2Client(deps, { appId: app.id, setting: 'confidential' })
    const first = await grantOf(app.id)
    const switched = await setOAuth2Client(deps, { appId: app.id, setting: 'public' })
    assert.equal(switched.client?.clientId, made.client?.clientId)
    assert.equal(switched.client?.clientSecret, null)
    assert.equal(await isLive(first.id), false)
    const second = await grantOf(app.id)
    assert.deepEqual(await setOAuth2Client(deps, { appId: app.id, setting: 'off' }), { client: undefined })
    assert.equal(await isLive(second.id), false)
    assert.equal(await deps.stores.oauth2Clients.findByAppId(app.id), undefined)
    const audit = await deps.stores.audit.list({ appId: app.id, limit: 10 })
    assert.deepEqual(audit.filter((row) => row.event === 'oauth2_client.updated').map((row) => row.detail?.oauth2).reverse(), ['confidential', 'public', 'off'])
  })
})
