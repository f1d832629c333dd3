// Issue 50: POST /admin/v1/users/import over HTTP, and e-mail addresses on the admin API's users.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { IMPORT_MAX_USERS } from '../../src/admin/routes/user-import.ts'
import { isCurrentHash } from '../../src/domain/passwords.ts'
import { startAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { Browser } from '../helpers/browser.ts'
import { makeRequestToken, openAndAllow } from '../helpers/consent-pages.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { HASH_VECTORS, VECTOR_PASSWORD } from '../helpers/imported-hash-vectors.ts'

describe('POST /admin/v1/users/import', () => {
  let server: AdminTestServer
  before(async () => {
    server = await startAdminTestServer()
  })
  after(() => server.close())

  const users = [
    { screen_name: 'imp_bcrypt', password_hash: HASH_VECTORS.bcrypt2b, name: 'From PHP', email: 'php@example.org' },
    { screen_name: 'imp_argon', password_hash: 'not-a-hash' },
    'a string, not a person',
    { screen_name: 'imp_django', password_hash: HASH_VECTORS.pbkdf2Sha256 },
  ]

  test('answers one result per entry, in order; the same call again changes nothing', async () => {
    const first = await server.admin('POST', '/admin/v1/users/import', { users })
    assert.equal(first.status, 200, first.text)
    const results = first.json.results as Array<Record<string, unknown>>
    assert.deepEqual(results.map((r) => [r.index, r.status, r.screen_name ?? null]), [[0, 'created', 'imp_bcrypt'], [1, 'refused', 'imp_argon'], [2, 'refused', null], [3, 'created', 'imp_django']])
    assert.match(String(results[1]!.reason), /password_hash is not a known format/)
    assert.equal(results[2]!.reason, 'not a JSON object')
    const again = await server.admin('POST', '/admin/v1/users/import', { users })
    assert.deepEqual(again.json.results.map((r: { status: string; id?: string }) => [r.status, r.id]), results.map((r) => [r.status === 'created' ? 'unchanged' : r.status, r.id]))
    const shown = await server.admin('GET', `/admin/v1/users/${String(results[0]!.id)}`)
    assert.equal(shown.json.email, 'php@example.org')
    const trail = await server.admin('GET', '/admin/v1/audit?event=user.created')
    assert.equal(trail.status, 200, trail.text)
    for (const text of [first.text, again.text, shown.text, trail.text]) assert.ok(!text.includes(HASH_VECTORS.bcrypt2b.slice(-20)) && !text.includes('j2TI2tqF'), 'no hash comes back')
  })

  test('an imported person signs in on the consent page with their old password, and their hash becomes scrypt', async () => {
    const [created] = (await server.admin('POST', '/admin/v1/users/import', { users: [{ screen_name: 'imp_page', password_hash: HASH_VECTORS.argon2id }] })).json.results
    const app = await makeApp(server.domain)
    const wrong = await openAndAllow(new Browser(server.app), '/oauth/authorize', (await makeRequestToken(server.domain, app)).token, { username: 'imp_page', password: 'wrong password' })
    assert.equal(wrong.statusCode, 401)
    const right = await openAndAllow(new Browser(server.app), '/oauth/authorize', (await makeRequestToken(server.domain, app)).token, { username: 'imp_page', password: VECTOR_PASSWORD })
    assert.equal(right.statusCode, 302)
    assert.ok(isCurrentHash((await server.domain.stores.users.findById(created.id))!.passwordHash))
  })

  test(`at most ${IMPORT_MAX_USERS} entries a call, and a body that is not a list is refused whole`, async () => {
    const tooMany = await server.admin('POST', '/admin/v1/users/import', { users: Array.from({ length: IMPORT_MAX_USERS + 1 }, (_, i) => ({ screen_name: `many${i}`, password_hash: HASH_VECTORS.bcrypt2b })) })
    assert.equal(tooMany.status, 400, tooMany.text)
    assert.equal((await server.admin('POST', '/admin/v1/users/import', { users: {} })).status, 400)
    assert.equal((await server.admin('POST', '/admin/v1/users/import', { users: [], extra: 1 })).status, 400)
    assert.equal((await server.admin('GET', '/admin/v1/users?screen_name=many0')).json.data.length, 0, 'nothing of a refused call was imported')
  })

  test('POST /admin/v1/users takes an e-mail address, unique without regard to case (409 code 1120)', async () => {
    const made = await server.admin('POST', '/admin/v1/users', { screen_name: 'with_mail', password: 'correct horse', email: 'Mail@Example.org' })
    assert.equal(made.status, 201, made.text)
    assert.equal(made.json.email, 'Mail@Example.org')
    const taken = await server.admin('POST', '/admin/v1/users', { screen_name: 'other_mail', password: 'correct horse', email: 'mail@example.ORG' })
    assert.equal(taken.status, 409, taken.text)
    assert.deepEqual([taken.json.detail, taken.json.errors.map((e: { field: string }) => e.field)], ['This e-mail address belongs to another person.', ['email']])
    const bad = await server.admin('POST', '/admin/v1/users', { screen_name: 'bad_mail', password: 'correct horse', email: 'no at sign' })
    assert.equal(bad.status, 400, bad.text)
    const without = await server.admin('POST', '/admin/v1/users', { screen_name: 'no_mail', password: 'correct horse' })
    assert.equal('email' in without.json, false)
  })

  test('PATCH sets, changes and removes an address; another person\'s address is 409 code 1120 and changes nothing', async () => {
    const first = (await server.admin('POST', '/admin/v1/users', { screen_name: 'patch_one', password: 'correct horse', email: 'one@example.org' })).json
    const second = (await server.admin('POST', '/admin/v1/users', { screen_name: 'patch_two', password: 'correct horse' })).json
    const taken = await server.admin('PATCH', `/admin/v1/users/${second.user_id}`, { email: 'ONE@example.org', name: 'Two' })
    assert.equal(taken.status, 409, taken.text)
    assert.equal(taken.json.detail, 'This e-mail address belongs to another person.')
    const unchanged = (await server.admin('GET', `/admin/v1/users/${second.user_id}`)).json
    assert.deepEqual([unchanged.name, 'email' in unchanged], ['patch_two', false], 'the refused change is rolled back whole')
    const set = await server.admin('PATCH', `/admin/v1/users/${second.user_id}`, { email: 'two@example.org' })
    assert.equal(set.json.email, 'two@example.org')
    const removed = await server.admin('PATCH', `/admin/v1/users/${first.user_id}`, { email: null })
    assert.equal(removed.status, 200, removed.text)
    assert.equal('email' in removed.json, false)
    const reused = await server.admin('PATCH', `/admin/v1/users/${second.user_id}`, { email: 'One@Example.org' })
    assert.equal(reused.json.email, 'One@Example.org', 'a removed address is free again')
  })
})
