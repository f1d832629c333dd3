import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { regenerateClientSecret, setOAuth2Client } from '../../../src/domain/oauth2-user/clients.ts'
import { authenticateOAuth2Client } from '../../../src/domain/oauth2-user/client-authentication.ts'
import type { DomainDeps } from '../../../src/domain/deps.ts'
import { makeApp, makeUser } from '../../helpers/fixtures.ts'
import { openTestDomain, testClock, type TestDomain } from '../../helpers/test-domain.ts'

// An app's OAuth 2.0 client (src/domain/oauth2-user/clients.ts) on real storage: what turning it on,
// switching, regenerating its secret and turning it off do to its grants and its credentials.

const NOW = Date.UTC(2026, 0, 1)
let t: TestDomain
let deps: DomainDeps
before(async () => {
  t = await openTestDomain({ clock: testClock(NOW) })
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
async function grantOf(appId: string) {
  const { user } = await makeUser(deps)
  const grant = { id: deps.newId(), appId, userId: user.id, scopes: ['tweet.read'], createdAtMs: NOW, revokedAtMs: null }
  await deps.stores.oauth2.createGrant(grant, [{ token: `access-${grant.id}`, record: { kind: 'access', grantId: grant.id, createdAtMs: NOW, expiresAtMs: NOW + 7_200_000, spentAtMs: null } }], `code-${grant.id}`)
  return grant
}
const isLive = async (grantId: string) => (await deps.stores.oauth2.findToken(`access-${grantId}`))?.grant.revokedAtMs === null

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
    assert.equal(await deps.stores.oauth2.findClientByAppId(app.id), undefined)
    const audit = await deps.stores.audit.list({ appId: app.id, limit: 10 })
    assert.deepEqual(audit.filter((row) => row.event === 'oauth2_client.updated').map((row) => row.detail?.oauth2).reverse(), ['confidential', 'public', 'off'])
  })
})
