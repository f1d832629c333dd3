// `latchkey user show` lists a person's upstream identities and `latchkey user unlink` removes one
// (docs/accounts.md), audited identity.unlinked; on the pass's database, through the real CLI.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { runCli } from '../helpers/cli.ts'
import { makeUser } from '../helpers/fixtures.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-app.ts'

describe('latchkey user unlink', () => {
  let db: TestDomain

  before(async () => {
    db = await openTestDomain()
  })
  after(() => db?.close())

  test('show lists the identities, unlink removes one, a second unlink is refused', async () => {
    const { user } = await makeUser(db.domain, { screenName: 'linked' })
    await db.domain.stores.identityLinks.create({ provider: 'login', subject: 'platform-7', userId: user.id, createdAtMs: Date.now() })
    const shown = await runCli(['user', 'show', 'linked', '--json'], db.cliEnv)
    assert.equal(shown.code, 0, shown.stderr)
    assert.deepEqual(JSON.parse(shown.stdout).identities, ['login:platform-7'])
    const text = await runCli(['user', 'show', 'linked'], db.cliEnv)
    assert.match(text.stdout, /^identities: login:platform-7$/m)

    const unlinked = await runCli(['user', 'unlink', 'linked', 'login', 'platform-7'], db.cliEnv)
    assert.equal(unlinked.code, 0, unlinked.stderr)
    assert.equal(unlinked.stdout.trim(), `unlinked login:platform-7 from linked (${user.id})`)
    assert.equal(await db.domain.stores.identityLinks.find('login', 'platform-7'), undefined)
    const audit = await db.domain.stores.listings.auditPage({ limit: 5, event: 'identity.unlinked' })
    assert.deepEqual(audit[0]?.detail, { provider: 'login', subject: 'platform-7' })

    const again = await runCli(['user', 'unlink', 'linked', 'login', 'platform-7'], db.cliEnv)
    assert.notEqual(again.code, 0)
    assert.match(again.stderr, /^latchkey: .*no such identity/)
  })
})
