// Issue 13: users, apps, owner tokens, bearer tokens and the audit trail over the admin API.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { countRows } from '../helpers/test-app.ts'
import { MAX_APPS_PER_OWNER } from '../../src/domain/registry/apps.ts'
import { setOAuth2Client } from '../../src/domain/oauth2-user/clients.ts'
import { newUserTokenValue } from '../../src/domain/oauth2-user/token-values.ts'

describe('admin API resources', () => {
  let server: AdminTestServer
  before(async () => {
    server = await injectedAdminTestServer()
  })
  after(() => server.close())

  const newUser = async (screenName: string) => {
    const answer = await server.admin('POST', '/admin/v1/users', { screen_name: screenName, password: 'correct horse', name: `Name of ${screenName}` })
    assert.equal(answer.status, 201, answer.text)
    return answer.json as { user_id: string; screen_name: string; name: string; created_at: string; disabled: boolean }
  }
  const newApp = async (owner: string, name: string, extra: Record<string, unknown> = {}) => {
    const answer = await server.admin('POST', '/admin/v1/apps', {
      name,
      owner,
      callbacks: ['https://client.example/cb'],
      type: 'web',
      sign_in: false,
      access_level: 'write',
      ...extra,
    })
    assert.equal(answer.status, 201, answer.text)
    return answer.json as Record<string, unknown> & { app_id: string; consumer_key: string; consumer_secret: string }
  }

  test('app names: 10 concurrent creates of one name by one owner give one 201 and nine 409 conflicts; a rename onto it is 409 too', async () => {
    const owner = await newUser('racer')
    const body = (name: string) => ({ name, owner: owner.user_id, callbacks: [], type: 'desktop', sign_in: false, access_level: 'read' })
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => server.admin('POST', '/admin/v1/apps', body(i % 2 ? 'Racer' : 'racer'))))
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409, 409, 409])
    for (const refused of answers.filter((a) => a.status === 409)) {
      assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
      assert.equal(refused.json.type, 'urn:latchkey:problem:conflict', refused.text)
      assert.match(refused.json.detail, /already has an app named/)
    }
    const listed = await server.admin('GET', `/admin/v1/apps?owner=${owner.user_id}`)
    assert.equal(listed.json.data.length, 1, 'one app was created')

    const other = await newApp(owner.user_id, 'Other')
    const renamed = await server.admin('PATCH', `/admin/v1/apps/${other.app_id}`, { name: 'RACER' })
    assert.equal(renamed.status, 409, renamed.text)
    assert.equal(renamed.json.type, 'urn:latchkey:problem:conflict')
    assert.equal((await server.admin('GET', `/admin/v1/apps/${other.app_id}`)).json.name, 'Other')
  })

  test(`the app limit: past ${MAX_APPS_PER_OWNER} apps of one owner a create is 400 naming the owner, unless it says beyond_app_limit`, async () => {
    const owner = await newUser('prolific')
    const template = await newApp(owner.user_id, 'App 1')
    const stored = (await server.domain.stores.apps.findById(template.app_id))!
    for (let i = 2; i <= MAX_APPS_PER_OWNER; i++) {
      assert.ok(await server.domain.stores.apps.create({ ...stored, id: server.domain.newId(), name: `App ${i}`, consumerKey: `${stored.consumerKey}${i}` }))
    }
    const apps = await countRows(server.dbPath, 'apps')
    const refused = await server.admin('POST', '/admin/v1/apps', { name: 'One more', owner: owner.user_id, callbacks: [], type: 'web', sign_in: false, access_level: 'read' })
    assert.equal(refused.status, 400, refused.text)
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.match(refused.text, /at most 100 apps/)
    assert.match(refused.text, /owner/)
    assert.equal(await countRows(server.dbPath, 'apps'), apps, 'nothing written')
    const beyond = await newApp(owner.user_id, 'One more', { beyond_app_limit: true })
    assert.equal(beyond.name, 'One more')
    assert.equal(beyond.owner, owner.user_id)
  })

  test('users: create, get, find by screen name, rename, change password; a taken screen name is 409', async () => {
    const ada = await newUser('ada')
    assert.deepEqual(Object.keys(ada).sort(), ['created_at', 'disabled', 'name', 'screen_name', 'user_id'])
    assert.equal(ada.disabled, false)
    assert.equal(ada.screen_name, 'ada')
    assert.equal((await server.admin('GET', `/admin/v1/users/${ada.user_id}`)).json.name, 'Name of ada')
    const found = await server.admin('GET', '/admin/v1/users?screen_name=ADA')
    assert.deepEqual(found.json, { data: [ada], next_cursor: null })

    const taken = await server.admin('POST', '/admin/v1/users', { screen_name: 'Ada', password: 'another one' })
    assert.equal(taken.status, 409)
    assert.equal(taken.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.deepEqual(taken.json.errors.map((e: { field: string }) => e.field), ['screen_name'])

    const renamed = await server.admin('PATCH', `/admin/v1/users/${ada.user_id}`, { name: 'Ada Lovelace', password: 'analytical engine' })
    assert.equal(renamed.status, 200, renamed.text)
    assert.equal(renamed.json.name, 'Ada Lovelace')
    assert.ok(!renamed.text.includes('analytical'), 'a password is never in an answer')
    assert.equal((await server.admin('GET', '/admin/v1/users/999999')).status, 404)
  })

  test('apps: create with the secret once, get and list without it, update, suspend, delete', async () => {
    const owner = await newUser('grace')
    const created = await newApp(owner.user_id, 'Compiler', { description: 'A-0', website: 'https://example.com', signature_methods: ['HMAC-SHA256'] })
    assert.equal(created.owner, owner.user_id)
    assert.equal(created.access_level, 'read-write')
    assert.deepEqual(created.callbacks, ['https://client.example/cb'])
    assert.match(created.consumer_secret, /^[A-Za-z0-9]{50}$/)

    const fetched = await server.admin('GET', `/admin/v1/apps/${created.app_id}`)
    assert.equal(fetched.status, 200)
    assert.equal(fetched.json.consumer_key, created.consumer_key)
    assert.ok(!fetched.text.includes(created.consumer_secret), 'GET never shows the secret')
    const listed = await server.admin('GET', `/admin/v1/apps?owner=${owner.user_id}`)
    assert.deepEqual(listed.json.data.map((a: { app_id: string }) => a.app_id), [created.app_id])
    assert.ok(!listed.text.includes(created.consumer_secret))

    const duplicate = await server.admin('POST', '/admin/v1/apps', { name: 'compiler', owner: owner.user_id, callbacks: [], type: 'desktop', sign_in: false, access_level: 'read' })
    assert.equal(duplicate.status, 409)

    const patched = await server.admin('PATCH', `/admin/v1/apps/${created.app_id}`, { name: 'Compiler 2', suspended: true, callbacks: ['myapp://done'] })
    assert.equal(patched.status, 200, patched.text)
    assert.equal(patched.json.name, 'Compiler 2')
    assert.equal(patched.json.suspended, true)
    assert.deepEqual(patched.json.callbacks, ['myapp://done'])

    const suspendedOwnerToken = await server.admin('POST', `/admin/v1/apps/${created.app_id}/owner-token`)
    assert.equal(suspendedOwnerToken.status, 400)
    await server.admin('PATCH', `/admin/v1/apps/${created.app_id}`, { suspended: false })
    const ownerToken = await server.admin('POST', `/admin/v1/apps/${created.app_id}/owner-token`)
    assert.equal(ownerToken.status, 200, ownerToken.text)
    assert.equal(ownerToken.json.user_id, owner.user_id)
    assert.equal(ownerToken.json.screen_name, 'grace')
    assert.match(ownerToken.json.oauth_token, new RegExp(`^${owner.user_id}-`))

    assert.equal((await server.admin('DELETE', `/admin/v1/apps/${created.app_id}`)).status, 204)
    assert.equal((await server.admin('GET', `/admin/v1/apps/${created.app_id}`)).status, 404)
    assert.equal((await server.admin('DELETE', `/admin/v1/apps/${created.app_id}`)).status, 404)
  })

  test('bearer token: DELETE invalidates the outstanding one (the app\'s Basic credentials then get a new one)', async () => {
    const owner = await newUser('hopper')
    const app = await newApp(owner.user_id, 'Cobol')
    const basic = `Basic ${Buffer.from(`${app.consumer_key}:${app.consumer_secret}`).toString('base64')}`
    const issue = () =>
      server
        .transport({
          url: `${server.url}/oauth2/token`,
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
          body: 'grant_type=client_credentials',
        })
        .then((r) => r.json() as Promise<{ access_token: string }>)
    const first = await issue()
    assert.equal((await issue()).access_token, first.access_token, 'the same token while it lives')
    assert.equal((await server.admin('DELETE', `/admin/v1/apps/${app.app_id}/bearer-token`)).status, 204)
    assert.notEqual((await issue()).access_token, first.access_token)
    const none = await server.admin('DELETE', `/admin/v1/apps/${app.app_id}/bearer-token`)
    assert.equal(none.status, 204, 'the new one is outstanding now')
    assert.equal((await server.admin('DELETE', `/admin/v1/apps/${app.app_id}/bearer-token`)).status, 404)
  })

  for (const resource of ['users', 'apps'] as const) {
    test(`${resource} pages: at most limit rows, a cursor that resumes strictly after the last, and rows inserted meanwhile neither repeat nor hide one`, async () => {
      const owner = await newUser(`pager_${resource}`)
      const add = async (i: number) => (resource === 'users' ? newUser(`p${i}_${resource}`) : newApp(owner.user_id, `Page app ${i}`))
      for (let i = 1; i <= 3; i++) await add(i)
      const idOf = (row: { user_id?: string; app_id?: string }) => (resource === 'users' ? row.user_id : row.app_id)!
      const limit = 3
      const seen: string[] = []
      let cursor: string | null = null
      let pages = 0
      do {
        const answer = await server.admin('GET', `/admin/v1/${resource}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
        assert.equal(answer.status, 200, answer.text)
        assert.ok(answer.json.data.length <= limit)
        if (answer.json.next_cursor) assert.equal(answer.json.data.length, limit, 'a page before the last is full')
        seen.push(...answer.json.data.map(idOf))
        cursor = answer.json.next_cursor
        if (pages++ === 0) await add(4)
      } while (cursor)
      assert.ok(pages > 2, `${pages} pages`)
      assert.equal(new Set(seen).size, seen.length, 'no row twice')
      assert.equal(seen.length, await countRows(server.dbPath, resource), 'every row once, the one inserted meanwhile too')
      assert.deepEqual([...seen].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)), seen, 'in id order')
      // A page that ends with the last row has no next page.
      const whole = await server.admin('GET', `/admin/v1/${resource}?limit=${seen.length}`)
      assert.deepEqual([whole.json.data.length, whole.json.next_cursor], [seen.length, null])
      const short = await server.admin('GET', `/admin/v1/${resource}?limit=${seen.length - 1}`)
      assert.equal(typeof short.json.next_cursor, 'string')
    })
  }

  test('no answer about an app shows its consumer secret but the one that makes it; an owner no one is lists nothing', async () => {
    const owner = await newUser('secretive')
    const made = await newApp(owner.user_id, 'Secretive app')
    assert.equal(typeof made.consumer_secret, 'string')
    const path = `/admin/v1/apps/${made.app_id}`
    const answers = [await server.admin('GET', path), await server.admin('PATCH', path, { description: 'changed' }), await server.admin('GET', `/admin/v1/apps?owner=${owner.user_id}`)]
    for (const answer of answers) {
      assert.equal(answer.status, 200, answer.text)
      assert.ok(!answer.text.includes(made.consumer_secret), answer.text)
      assert.ok(!answer.text.includes('consumer_secret'), answer.text)
    }
    assert.deepEqual(answers[2]!.json.data.map((a: { app_id: string }) => a.app_id), [made.app_id])
    for (const nobody of ['nobody_at_all', '999999999999']) {
      assert.deepEqual((await server.admin('GET', `/admin/v1/apps?owner=${nobody}`)).json, { data: [], next_cursor: null })
    }
  })

  test("a person's authorizations are listed in app id order, whatever kind and order they were given in", async () => {
    const person = await newUser('orderly')
    const apps = [await newApp(person.user_id, 'Orderly first'), await newApp(person.user_id, 'Orderly second'), await newApp(person.user_id, 'Orderly third')]
    // The first by an OAuth 2.0 grant, listed after OAuth 1.0a's before they are sorted; the others by tokens.
    for (const app of apps.slice(0, 1)) {
      await setOAuth2Client(server.domain, { appId: app.app_id, setting: 'public' })
      const grant = { id: server.domain.newId(), appId: app.app_id, userId: person.user_id, scopes: ['users.read'], createdAtMs: Date.now(), revokedAtMs: null }
      const access = { kind: 'access' as const, grantId: grant.id, createdAtMs: grant.createdAtMs, expiresAtMs: grant.createdAtMs + 3_600_000, spentAtMs: null }
      await server.domain.stores.oauth2Grants.create(grant, [{ token: newUserTokenValue(), record: access }], `code-${grant.id}`)
    }
    for (const app of apps.slice(1)) assert.equal((await server.admin('POST', `/admin/v1/apps/${app.app_id}/owner-token`)).status, 200)
    const listed = await server.admin('GET', `/admin/v1/users/${person.user_id}/authorizations`)
    assert.deepEqual(listed.json.data.map((a: { app_id: string }) => a.app_id), apps.map((app) => app.app_id))
  })

  test('a cursor is accepted only in the form a list writes it: the canonical base64url of a key', async () => {
    // "MTI" is "12" written as this list writes it; "MTJ" decodes to "12" too, with stray bits.
    assert.equal((await server.admin('GET', '/admin/v1/users?cursor=MTI')).status, 200)
    const stray = await server.admin('GET', '/admin/v1/users?cursor=MTJ')
    assert.equal(stray.status, 400)
    assert.equal(stray.json.detail, 'The cursor is not one this list gave.')
    assert.deepEqual(stray.json.errors, [{ in: 'query', field: 'cursor', detail: 'must be a next_cursor from this list' }])
    // Canonical, but of keys that are not ids: letters before or after the digits.
    for (const key of ['x1', '1x']) {
      for (const list of ['users', 'apps']) assert.equal((await server.admin('GET', `/admin/v1/${list}?cursor=${Buffer.from(key).toString('base64url')}`)).status, 400, `${list} ${key}`)
    }
  })

  test('audit: the admin API\'s changes are in the trail with the admin token as actor, newest first, filtered and paged', async () => {
    const owner = await newUser('lamport')
    const app = await newApp(owner.user_id, 'Paxos')
    await server.admin('PATCH', `/admin/v1/apps/${app.app_id}`, { description: 'consensus' })
    const trail = await server.admin('GET', `/admin/v1/audit?app_id=${app.app_id}`)
    assert.equal(trail.status, 200, trail.text)
    assert.deepEqual(trail.json.data.map((e: { event: string }) => e.event), ['app.updated', 'app.created'])
    for (const event of trail.json.data) assert.equal(event.detail.actor, `admin_token:${server.tokenId}`)
    const created = await server.admin('GET', `/admin/v1/audit?user_id=${owner.user_id}&event=user.created`)
    assert.deepEqual(created.json.data.map((e: { event: string }) => e.event), ['user.created'])

    const first = await server.admin('GET', '/admin/v1/audit?limit=1')
    const second = await server.admin('GET', `/admin/v1/audit?limit=1&cursor=${first.json.next_cursor}`)
    assert.equal(second.json.data.length, 1)
    assert.notDeepEqual(second.json.data[0], first.json.data[0])
    assert.ok(second.json.data[0].at <= first.json.data[0].at)
    const future = await server.admin('GET', `/admin/v1/audit?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)
    assert.deepEqual(future.json, { data: [], next_cursor: null })
    assert.ok(!JSON.stringify((await server.admin('GET', '/admin/v1/audit?limit=200')).json).includes(app.consumer_secret))
  })
})
