import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { runCli } from '../helpers/cli.ts'

// `latchkey seed FILE` as a person runs it (issue 47 item 2): the real command on a real SQLite file.

const dir = mkdtempSync(join(tmpdir(), 'latchkey-seed-'))
after(() => rmSync(dir, { recursive: true, force: true }))

let files = 0
const newDatabase = () => ({ LATCHKEY_DATABASE_URL: join(dir, `db-${++files}.sqlite`) })
function seedFile(seed: unknown): string {
  const path = join(dir, `seed-${++files}.json`)
  writeFileSync(path, typeof seed === 'string' ? seed : JSON.stringify(seed))
  return path
}

const CONSUMER_KEY = 'CliSeedConsumerKey0123456'
const SEED = {
  people: [{ screen_name: 'alice', password: 'correct horse battery' }],
  apps: [{ name: 'CLI app', owner: 'alice', consumer_key: CONSUMER_KEY, callbacks: ['https://client.example/cb'], oauth2_client_type: 'public' }],
  credentials: { access_tokens: [{ app: 'CLI app', person: 'alice' }], bearer_tokens: [{ app: 'CLI app' }], oauth2_grants: [{ app: 'CLI app', person: 'alice', scopes: ['users.read'] }] },
}

describe('latchkey seed', () => {
  test('--json prints every value; the database holds them; seeding again prints the same and adds nothing', async () => {
    const env = newDatabase()
    const file = seedFile(SEED)
    const first = await runCli(['seed', file, '--json'], env)
    assert.equal(first.code, 0, first.stderr)
    const result = JSON.parse(first.stdout)
    assert.equal(result.apps[0].consumer_key, CONSUMER_KEY)
    assert.match(result.apps[0].consumer_secret, /^[A-Za-z0-9]{50}$/)
    assert.match(result.credentials.access_tokens[0].token, new RegExp(`^${result.people[0].user_id}-`))
    assert.match(result.credentials.oauth2_grants[0].access_token, /^[A-Za-z0-9]{86}$/)
    const shown = await runCli(['app', 'show', CONSUMER_KEY, '--json'], env)
    assert.equal(JSON.parse(shown.stdout).consumer_secret, result.apps[0].consumer_secret, 'the app is in the database the command was given')
    const again = await runCli(['seed', file, '--json'], env)
    assert.equal(again.stdout, first.stdout)
    assert.equal(JSON.parse((await runCli(['user', 'list', '--json'], env)).stdout).length, 1)
  })

  test('without --json: a short summary, no secret', async () => {
    const done = await runCli(['seed', seedFile(SEED)], newDatabase())
    assert.equal(done.code, 0, done.stderr)
    assert.match(done.stdout, /^seeded 1 people, 1 apps, 1 access tokens, 1 bearer tokens, 1 OAuth 2\.0 grants$/m)
    assert.match(done.stdout, new RegExp(`app CLI app \\(\\d+\\) consumer key ${CONSUMER_KEY}`))
    assert.doesNotMatch(done.stdout, /correct horse|secret":|[A-Za-z0-9]{50}/)
  })

  test('a bad seed: exit 1, one stderr line per bad field with its path, nothing on stdout, nothing written', async () => {
    const env = newDatabase()
    const bad = { people: [{ screen_name: 'alice', password: 'short' }], apps: [{ name: 'X', owner: 'alice', callbacks: ['not a url'], type: 'robot' }] }
    const refused = await runCli(['seed', seedFile(bad)], env)
    assert.equal(refused.code, 1)
    assert.equal(refused.stdout, '')
    const lines = refused.stderr.trimEnd().split('\n')
    assert.deepEqual(lines.map((line) => /^latchkey: ([^:]+): \S/.exec(line)?.[1]).sort(), ['apps[0].callbacks[0]', 'apps[0].type', 'people[0].password'])
    assert.doesNotMatch(refused.stderr, /^\s+at /m)
    assert.equal((await runCli(['user', 'list', '--json'], env)).stdout.trim(), '[]')
  })

  test('a file that is missing or not JSON: one line saying so', async () => {
    const env = newDatabase()
    for (const [file, reason] of [[join(dir, 'no-such.json'), /cannot read .*ENOENT/], [seedFile('{ not json'), /is not JSON/]] as const) {
      const refused = await runCli(['seed', file], env)
      assert.equal(refused.code, 1)
      assert.equal(refused.stderr.trimEnd().split('\n').length, 1, refused.stderr)
      assert.match(refused.stderr, /^latchkey: \(file\): /)
      assert.match(refused.stderr, reason)
    }
  })
})
