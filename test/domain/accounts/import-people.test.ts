// Issue 50: people imported with the password hashes of the system they come from, on both backends.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { importPeople, NOT_JSON, parseImportLine } from '../../../src/domain/accounts/import-people.ts'
import { updateUser } from '../../../src/domain/admin/people.ts'
import { isCurrentHash, passwordHashFormat } from '../../../src/domain/passwords.ts'
import { confirmPassword, createSignInThrottle, signIn } from '../../../src/domain/sign-in.ts'
import { ServiceError } from '../../../src/errors/service-error.ts'
import { createMemoryLimiterFactory } from '../../../src/storage/memory/limiter.ts'
import { makeUser } from '../../helpers/fixtures.ts'
import { HASH_VECTORS, VECTOR_PASSWORD } from '../../helpers/imported-hash-vectors.ts'
import { openTestDomain, type TestDomain } from '../../helpers/test-domain.ts'

const withCode = (code: number) => (error: unknown) => error instanceof ServiceError && error.code === code

describe('importing people with their password hashes', () => {
  let t: TestDomain
  let deps: Parameters<typeof signIn>[0]
  before(async () => {
    t = await openTestDomain()
    deps = { ...t.domain, throttle: createSignInThrottle(createMemoryLimiterFactory(), { signInMaxFailures: 50, signInWindowSeconds: 900 }, t.domain.stores.signInUnlocks) }
  })
  after(() => t.close())

  const hashOf = async (screenName: string) => (await t.domain.stores.users.findByScreenName(screenName))!.passwordHash

  test('each format is created, signs in with its password and not with another, and is replaced by scrypt at the first sign-in', async () => {
    const entries = Object.entries(HASH_VECTORS).map(([format, hash], i) => ({ screen_name: `fmt_${format}`.slice(0, 15), password_hash: hash, name: `Format ${i}`, email: `Fmt${i}@Example.org` }))
    const results = await importPeople(t.domain, entries, { firstIndex: 0 })
    assert.deepEqual(results.map((r) => r.status), entries.map(() => 'created'))
    for (const entry of entries) {
      const screenName = entry.screen_name
      const stored = await t.domain.stores.users.findByScreenName(screenName)
      assert.equal(stored!.passwordHash, entry.password_hash, 'kept as imported until the first sign-in')
      assert.equal(stored!.email, entry.email)
      await assert.rejects(signIn(deps, { username: screenName, password: 'not the password', address: '10.0.0.1' }), withCode(1107))
      assert.equal(await hashOf(screenName), entry.password_hash, 'a wrong password replaces nothing')
      const signedIn = await signIn(deps, { username: screenName, password: VECTOR_PASSWORD, address: '10.0.0.1' })
      assert.equal(signedIn.screenName, screenName)
      const upgraded = await hashOf(screenName)
      assert.equal(passwordHashFormat(upgraded), 'scrypt', screenName)
      assert.ok(isCurrentHash(upgraded), screenName)
      await signIn(deps, { username: screenName, password: VECTOR_PASSWORD, address: '10.0.0.1' })
      assert.equal(await hashOf(screenName), upgraded, 'a current hash is not replaced again')
    }
  })

  test('confirming the password before a sensitive action replaces an imported hash too, and ends no session', async () => {
    const [created] = await importPeople(t.domain, [{ screen_name: 'confirm_me', password_hash: HASH_VECTORS.bcrypt2b }], { firstIndex: 0 })
    const user = (await t.domain.stores.users.findById(created!.id!))!
    await confirmPassword(deps, { user, password: VECTOR_PASSWORD, address: '10.0.0.2' })
    const after = (await t.domain.stores.users.findById(user.id))!
    assert.ok(isCurrentHash(after.passwordHash))
    assert.equal(after.sessionGeneration ?? 0, user.sessionGeneration ?? 0)
  })

  test('a malformed line is reported with its reason and the rest imported; the same entries again change nothing', async () => {
    await makeUser(t.domain, { screenName: 'taken_name' })
    const lines = [
      JSON.stringify({ screen_name: 'ok_one', password_hash: HASH_VECTORS.argon2id, id: '900000000000001' }),
      `{"screen_name": "broken", "password_hash": "${HASH_VECTORS.bcrypt2y}"`,
      JSON.stringify({ screen_name: 'bad name!', password_hash: HASH_VECTORS.bcrypt2y }),
      JSON.stringify({ screen_name: 'md5_person', password_hash: 'md5$salt$0123456789abcdef' }),
      JSON.stringify({ screen_name: 'TAKEN_NAME', password_hash: HASH_VECTORS.bcrypt2y }),
      JSON.stringify({ screen_name: 'same_mail', password_hash: HASH_VECTORS.bcrypt2y, email: 'FMT0@example.org' }),
      JSON.stringify({ screen_name: 'extra', password_hash: HASH_VECTORS.bcrypt2y, password: 'plain' }),
      JSON.stringify(['not', 'an', 'object']),
      JSON.stringify({ screen_name: 'nul_name', password_hash: HASH_VECTORS.bcrypt2y, name: 'A\u0000B' }),
      JSON.stringify({ screen_name: 'bad_mail', password_hash: HASH_VECTORS.bcrypt2y, email: 'no address' }),
      JSON.stringify({ screen_name: 'odd_key', password_hash: HASH_VECTORS.bcrypt2y, [HASH_VECTORS.bcrypt2b]: 1 }),
      JSON.stringify({ screen_name: 'ok_two', password_hash: HASH_VECTORS.pbkdf2Sha256, name: 'Two' }),
    ]
    const entries = lines.map(parseImportLine)
    assert.equal(entries[1], NOT_JSON)
    const first = await importPeople(t.domain, entries, { firstIndex: 1 })
    assert.deepEqual(
      first.map((r) => [r.index, r.status]),
      [[1, 'created'], [2, 'refused'], [3, 'refused'], [4, 'refused'], [5, 'refused'], [6, 'refused'], [7, 'refused'], [8, 'refused'], [9, 'refused'], [10, 'refused'], [11, 'refused'], [12, 'created']],
    )
    assert.equal(first[0]!.id, '900000000000001')
    const reasons = first.filter((r) => r.status === 'refused').map((r) => r.reason!)
    assert.deepEqual(reasons, [
      'not JSON',
      'screen name must be 1 to 15 letters, digits or underscores',
      'password_hash is not a known format (bcrypt, argon2id, pbkdf2_sha256, scrypt) or its cost is out of bounds',
      'screen name TAKEN_NAME is taken by another person',
      'email is taken by another person',
      'unknown field password (known: screen_name, password_hash, name, email, id)',
      'not a JSON object',
      'name must not contain control characters',
      'email must be an e-mail address (name@example.org)',
      'unknown field names (known: screen_name, password_hash, name, email, id)',
    ])
    for (const reason of reasons) assert.ok(!reason.includes('$2'), 'no hash in a reason')

    const again = await importPeople(t.domain, entries, { firstIndex: 1 })
    assert.deepEqual(again.map((r) => r.status), ['unchanged', 'refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'refused', 'unchanged'])
    assert.deepEqual(again.map((r) => r.id), first.map((r) => r.id))

    // Once signed in (the hash replaced), an entry with its id is still the same person.
    await signIn(deps, { username: 'ok_one', password: VECTOR_PASSWORD, address: '10.0.0.3' })
    const third = await importPeople(t.domain, [entries[0], entries[11]], { firstIndex: 0 })
    assert.deepEqual(third.map((r) => r.status), ['unchanged', 'unchanged'])
  })

  test('the audit trail says who was imported and in which format, never the hash', async () => {
    const [created] = await importPeople(t.domain, [{ screen_name: 'audited', password_hash: HASH_VECTORS.pbkdf2Sha256 }], { firstIndex: 0 })
    const rows = await t.domain.stores.audit.list({ userId: created!.id!, limit: 5 })
    assert.deepEqual(rows.map((row) => [row.event, row.detail]), [['user.created', { screen_name: 'audited', imported: true, hash_format: 'pbkdf2_sha256' }]])
    assert.ok(!JSON.stringify(rows).includes('j2TI2tqF'))
  })

  test('an upgrade does not undo a password changed while the old one was being checked', async () => {
    const [created] = await importPeople(t.domain, [{ screen_name: 'raced', password_hash: HASH_VECTORS.bcrypt2a }], { firstIndex: 0 })
    const changed = await updateUser(t.domain, created!.id!, { password: 'a brand new password' })
    // The stale hash is what the sign-in checked: the conditional update finds the row changed.
    const updated = await t.domain.stores.users.update(created!.id!, { passwordHash: 'scrypt$x', whenPasswordHash: HASH_VECTORS.bcrypt2a })
    assert.equal(updated, undefined)
    assert.equal(await hashOf('raced'), changed.passwordHash)
    await signIn(deps, { username: 'raced', password: 'a brand new password', address: '10.0.0.4' })
  })
})
