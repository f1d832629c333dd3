import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { runCli, runCliAtTerminal, type CliResult } from '../helpers/cli.ts'
import { damageSealedKey } from '../helpers/test-app.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-cli-'))
after(() => rmSync(dir, { recursive: true, force: true }))

let databases = 0
/** A fresh database for one test. */
const newDatabase = () => ({ LATCHKEY_DATABASE_URL: join(dir, `db-${++databases}.sqlite`) })

/** Runs the command, expects success and exactly one JSON document on stdout. */
async function json(args: string[], env: Record<string, string>, input?: string): Promise<Record<string, unknown>> {
  const result = await runCli([...args, '--json'], env, input)
  assert.equal(result.code, 0, `latchkey ${args.join(' ')} failed: ${result.stderr}`)
  return JSON.parse(result.stdout) as Record<string, unknown>
}

/** A refusal as a person sees it: a non-zero exit, one line on stderr, no stack trace. */
function assertRefusal(result: CliResult, message: RegExp): void {
  assert.notEqual(result.code, 0)
  const lines = result.stderr.trimEnd().split('\n')
  assert.equal(lines.length, 1, `one line on stderr, got:\n${result.stderr}`)
  assert.match(lines[0]!, /^latchkey: /)
  assert.match(lines[0]!, message)
  assert.doesNotMatch(result.stderr, /^\s+at /m)
  assert.equal(result.stdout, '')
}

describe('latchkey user and app commands', () => {
  test('take an app through its life: create, show, owner token, rotate keys, suspend, list, delete', async () => {
    const env = newDatabase()
    const user = await json(['user', 'create', '--screen-name', 'alice', '--password', 'correct horse battery', '--name', 'Alice'], env)
    assert.equal(user.screen_name, 'alice')
    assert.match(String(user.user_id), /^\d+$/)

    const users = (await json(['user', 'list'], env)) as unknown as Array<Record<string, unknown>>
    assert.deepEqual(users.map((u) => u.screen_name), ['alice'])
    assert.ok(!JSON.stringify(users).includes('correct horse'), 'the password never comes back')

    const app = await json(
      ['app', 'create', '--name', 'My App', '--owner', 'alice', '--callback', 'https://client.example/cb', '--callback', 'myapp://cb', '--type', 'web', '--sign-in', '--access-level', 'read', '--description', 'Reads things', '--website', 'https://client.example'],
      env,
    )
    assert.match(String(app.app_id), /^\d+$/)
    assert.deepEqual(app.callbacks, ['https://client.example/cb', 'myapp://cb'])
    assert.equal(app.access_level, 'read')
    assert.equal(app.type, 'web')
    assert.equal(app.sign_in, true)
    assert.equal(typeof app.consumer_key, 'string')
    assert.equal(typeof app.consumer_secret, 'string')

    const shown = await json(['app', 'show', String(app.consumer_key)], env)
    assert.equal(shown.app_id, app.app_id)
    assert.equal(shown.consumer_secret, app.consumer_secret)

    const token = await json(['app', 'owner-token', String(app.app_id)], env)
    assert.equal(token.user_id, user.user_id)
    assert.equal(token.screen_name, 'alice')
    assert.equal(typeof token.oauth_token, 'string')
    assert.equal(typeof token.oauth_token_secret, 'string')
    assert.deepEqual(await json(['app', 'owner-token', String(app.consumer_key)], env), token, 'the same token on repeat')

    const rotated = await json(['app', 'rotate-keys', String(app.app_id)], env)
    assert.notEqual(rotated.consumer_key, app.consumer_key)
    assert.notEqual(rotated.consumer_secret, app.consumer_secret)
    assertRefusal(await runCli(['app', 'show', String(app.consumer_key)], env), /no app/)
    const newToken = await json(['app', 'owner-token', String(rotated.consumer_key)], env)
    assert.notEqual(newToken.oauth_token, token.oauth_token, 'the old owner token was revoked')

    const suspended = await json(['app', 'update', String(app.app_id), '--suspended'], env)
    assert.equal(suspended.suspended, true)

    const listed = (await json(['app', 'list'], env)) as unknown as Array<Record<string, unknown>>
    assert.equal(listed.length, 1)
    assert.equal(listed[0]?.app_id, app.app_id)
    assert.equal(listed[0]?.suspended, true)
    assert.ok(!('consumer_secret' in listed[0]!), 'list shows no secrets')

    const deleted = await json(['app', 'delete', String(app.app_id)], env)
    assert.equal(deleted.app_id, app.app_id)
    assert.deepEqual(await json(['app', 'list'], env), [])
  })

  test('an app whose stored consumer secret cannot be opened: app show says so in one line and what mends it; rotate-keys mends it', async () => {
    const env = newDatabase()
    await json(['user', 'create', '--screen-name', 'dora', '--password', 'correct horse battery'], env)
    const app = await json(['app', 'create', '--name', 'Damaged', '--owner', 'dora', '--callback', 'https://client.example/cb'], env)
    await damageSealedKey(env.LATCHKEY_DATABASE_URL, String(app.app_id), 'consumer_secret')
    assertRefusal(
      await runCli(['app', 'show', String(app.app_id)], env),
      new RegExp(`^latchkey: app ${app.app_id}'s consumer secret: .*: the master keyring cannot open it; give the app new keys \\(latchkey app rotate-keys <app>\\)`),
    )
    const rotated = await json(['app', 'rotate-keys', String(app.app_id), '--yes'], env)
    assert.match(String(rotated.consumer_secret), /^\w{50}$/)
    assert.equal((await json(['app', 'show', String(app.app_id)], env)).consumer_secret, rotated.consumer_secret)
  })

  test("an app's OAuth 2.0 client: made with --oauth2, its secret regenerated at once or with --grace", async () => {
    const env = newDatabase()
    await json(['user', 'create', '--screen-name', 'olga', '--password', 'correct horse battery'], env)
    const app = await json(['app', 'create', '--name', 'OAuth 2 app', '--owner', 'olga', '--callback', 'https://client.example/cb', '--oauth2', 'confidential'], env)
    assert.match(String(app.client_id), /^[A-Za-z0-9]{34}$/)
    assert.match(String(app.client_secret), /^[A-Za-z0-9]{50}$/)
    const graceful = await json(['app', 'rotate-client-secret', String(app.app_id), '--grace', '3600'], env)
    assert.equal(graceful.client_id, app.client_id)
    assert.notEqual(graceful.client_secret, app.client_secret)
    assert.ok(Math.abs(Date.parse(String(graceful.previous_secret_expires_at)) - (Date.now() + 3_600_000)) < 60_000, String(graceful.previous_secret_expires_at))
    const atOnce = await json(['app', 'rotate-client-secret', String(app.app_id)], env)
    assert.equal(atOnce.previous_secret_expires_at, null)
    assertRefusal(await runCli(['app', 'rotate-client-secret', String(app.app_id), '--grace', '604801'], env), /grace must be a whole number of seconds from 1 to 604800/)
    assertRefusal(await runCli(['app', 'rotate-client-secret', String(app.app_id), '--grace', 'an hour'], env), /whole number of seconds/)
  })

  test('people: show, update, disable and enable, by id or screen name; passwords from standard input or a hidden prompt', async () => {
    const env = newDatabase()
    const created = await json(['user', 'create', '--screen-name', 'grace', '--password-stdin'], { ...env }, 'first password\nignored second line\n')
    assert.deepEqual(Object.keys(created).sort(), ['created_at', 'disabled', 'name', 'screen_name', 'user_id'])
    assert.deepEqual(await json(['user', 'show', '@GRACE'], env), { ...created, identities: [] })
    assert.deepEqual(await json(['user', 'show', String(created.user_id)], env), { ...created, identities: [] })
    const renamed = await json(['user', 'update', 'grace', '--name', 'Grace Hopper'], env)
    assert.equal(renamed.name, 'Grace Hopper')
    assert.equal((await json(['user', 'disable', 'grace'], env)).disabled, true)
    assert.equal((await json(['user', 'enable', String(created.user_id)], env)).disabled, false)
    assertRefusal(await runCli(['user', 'update', 'grace'], env), /nothing to change/)
    assertRefusal(await runCli(['user', 'show', 'nobody'], env), /no user with id or screen name nobody/)
    // Neither password option and no terminal: refused, with what to do instead.
    assertRefusal(await runCli(['user', 'create', '--screen-name', 'nopass'], env), /--password-stdin/)

    // At a terminal: asked twice, never echoed.
    const asked = await runCliAtTerminal(['user', 'create', '--screen-name', 'prompted'], env, [
      { after: /Password: /, type: 'typed at the prompt' },
      { after: /Password again: /, type: 'typed at the prompt' },
    ])
    assert.equal(asked.code, 0, asked.stdout)
    assert.match(asked.stdout, /created user prompted/)
    assert.doesNotMatch(asked.stdout, /typed at the prompt/, 'the password is not echoed')
    const differing = await runCliAtTerminal(['user', 'create', '--screen-name', 'differ'], env, [
      { after: /Password: /, type: 'one password here' },
      { after: /Password again: /, type: 'another password' },
    ])
    assert.notEqual(differing.code, 0)
    assert.match(differing.stdout, /the two passwords differ/)
    assert.deepEqual(((await json(['user', 'list'], env)) as unknown as Array<{ screen_name: string }>).map((u) => u.screen_name), ['grace', 'prompted'])
  })

  test('unlock: a person or an address, named in the audit trail; an address that is none is refused', async () => {
    const env = newDatabase()
    await json(['user', 'create', '--screen-name', 'locked', '--password-stdin'], env, 'a long enough password\n')
    assert.deepEqual(await json(['user', 'unlock', 'locked'], env), { user_id: (await json(['user', 'show', 'locked'], env)).user_id, screen_name: 'locked', unlocked: true })
    assert.deepEqual(await json(['user', 'unlock', '--address', '2001:db8::1'], env), { address: '2001:db8::1', unlocked: true })
    assertRefusal(await runCli(['user', 'unlock', '--address', 'not an address'], env), /not an IP address/)
    assertRefusal(await runCli(['user', 'unlock'], env), /give a user or --address/)
    const trail = (await json(['audit', '--limit', '2'], env)) as unknown as Array<{ event: string; detail: unknown }>
    assert.deepEqual(trail.map((e) => [e.event, e.detail]), [['sign_in.unlocked', { address: '2001:db8::1' }], ['sign_in.unlocked', { account: 'locked' }]])
  })

  test('--version prints the version of package.json', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    const printed = await runCli(['--version'], {})
    assert.equal(printed.code, 0)
    assert.equal(printed.stdout.trim(), version)
  })

  test('callbacks: --add-callback and --remove-callback change the list, --callback replaces it; oob is explained, not registered', async () => {
    const env = newDatabase()
    await json(['user', 'create', '--screen-name', 'cally', '--password-stdin'], env, 'a long enough password\n')
    const app = await json(['app', 'create', '--name', 'Calls', '--owner', 'cally', '--callback', 'https://a.example/cb'], env)
    const id = String(app.app_id)
    assert.deepEqual((await json(['app', 'update', id, '--add-callback', 'https://b.example/cb', '--add-callback', 'https://a.example/cb'], env)).callbacks, ['https://a.example/cb', 'https://b.example/cb'])
    assert.deepEqual((await json(['app', 'update', id, '--remove-callback', 'https://a.example/cb'], env)).callbacks, ['https://b.example/cb'])
    assertRefusal(await runCli(['app', 'update', id, '--remove-callback', 'https://nope.example/cb'], env), /not a registered callback URL of this app \(registered: https:\/\/b\.example\/cb\)/)
    assert.deepEqual((await json(['app', 'update', id, '--callback', 'https://c.example/cb'], env)).callbacks, ['https://c.example/cb'])
    assertRefusal(await runCli(['app', 'update', id, '--add-callback', 'oob'], env), /every app may ask for the PIN flow with oauth_callback=oob/)
    assert.match((await runCli(['app', 'create', '--help'], env)).stdout, /oauth_callback=oob/)
  })

  test('rotate-keys without --grace asks at a terminal and says what stopped; --yes, or no terminal, does not ask', async () => {
    const env = newDatabase()
    await json(['user', 'create', '--screen-name', 'rota', '--password-stdin'], env, 'a long enough password\n')
    const app = await json(['app', 'create', '--name', 'Rotating', '--owner', 'rota'], env)
    const declined = await runCliAtTerminal(['app', 'rotate-keys', String(app.app_id)], env, [{ after: /Go ahead\? \[y\/N\] /, type: 'n' }])
    assert.notEqual(declined.code, 0)
    assert.match(declined.stdout, /stops its consumer key and secret and every request, access and bearer token/)
    assert.match(declined.stdout, /nothing changed/)
    assert.equal((await json(['app', 'show', String(app.app_id)], env)).consumer_key, app.consumer_key, 'declined: the keys are the same')
    const confirmed = await runCliAtTerminal(['app', 'rotate-keys', String(app.app_id)], env, [{ after: /Go ahead\? \[y\/N\] /, type: 'y' }])
    assert.equal(confirmed.code, 0, confirmed.stdout)
    assert.match(confirmed.stdout, /stopped working: the old consumer key and secret, and every request, access and bearer token of the app/)
    const atTerminalWithYes = await runCliAtTerminal(['app', 'rotate-keys', String(app.app_id), '--yes'], env, [])
    assert.equal(atTerminalWithYes.code, 0, atTerminalWithYes.stdout)
    assert.doesNotMatch(atTerminalWithYes.stdout, /Go ahead/)
    const scripted = await json(['app', 'rotate-keys', String(app.app_id)], env)
    assert.deepEqual([scripted.previous_key_expires_at, scripted.tokens_revoked], [null, true])
    const graceful = await json(['app', 'rotate-keys', String(app.app_id), '--grace', '60'], env)
    assert.equal(graceful.tokens_revoked, false)
  })

  test('migrate applies the migrations, then says the database is up to date', async () => {
    const env = newDatabase()
    const first = await runCli(['migrate'], env)
    assert.equal(first.code, 0, first.stderr)
    assert.match(first.stdout, /^applied /)
    const second = await runCli(['migrate'], env)
    assert.equal(second.code, 0, second.stderr)
    assert.equal(second.stdout, 'database is up to date\n')
  })

  test('the --database flag picks the database as LATCHKEY_DATABASE_URL does', async () => {
    const path = join(dir, 'by-flag.sqlite')
    await json(['--database', path, 'user', 'create', '--screen-name', 'flagged', '--password', 'long enough password'], {})
    const users = (await json(['user', 'list'], { LATCHKEY_DATABASE_URL: path })) as unknown as Array<Record<string, unknown>>
    assert.deepEqual(users.map((u) => u.screen_name), ['flagged'])
  })
})

describe('latchkey demo', () => {
  test('prints the demo as it is now: after a rotation that stopped its keys and its owner token, the new keys and a live token', async () => {
    const env = newDatabase()
    const user = await json(['user', 'create', '--screen-name', 'demo', '--password', 'demo password 1'], env)
    const app = await json(['app', 'create', '--name', 'Demo app', '--owner', 'demo', '--callback', 'http://127.0.0.1:3000/callback'], env)
    const owner = await json(['app', 'owner-token', String(app.app_id)], env)
    // What the development server's first start writes beside the database (src/composition/dev-demo.ts).
    const file = `${env.LATCHKEY_DATABASE_URL}.demo.json`
    const made = {
      screenName: user.screen_name, password: 'demo password 1', appId: app.app_id, consumerKey: app.consumer_key, consumerSecret: app.consumer_secret,
      accessToken: owner.oauth_token, accessTokenSecret: owner.oauth_token_secret, adminToken: 'lk_admin_made_at_first_start',
    }
    writeFileSync(file, JSON.stringify(made), { mode: 0o600 })

    const before = await json(['demo'], env)
    assert.equal(before.consumer_key, app.consumer_key)
    assert.equal(before.owner_access_token, owner.oauth_token)

    const rotated = await json(['app', 'rotate-keys', String(app.app_id), '--yes'], env)
    const after = await json(['demo'], env)
    assert.equal(after.sign_in, 'demo / demo password 1')
    assert.equal(after.admin_token, 'lk_admin_made_at_first_start')
    assert.equal(after.consumer_key, rotated.consumer_key)
    assert.equal(after.consumer_secret, rotated.consumer_secret)
    assert.notEqual(after.owner_access_token, owner.oauth_token, 'the rotation stopped the old owner token')
    // The owner's live token is handed out again, never a second one: the one demo printed is live.
    const live = await json(['app', 'owner-token', String(app.app_id)], env)
    assert.equal(live.oauth_token, after.owner_access_token)
    assert.equal(live.oauth_token_secret, after.owner_token_secret)
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).consumerKey, rotated.consumer_key, 'the front door shows the file: the new keys')
  })
})

describe('latchkey refuses bad input with one line and a non-zero exit', { concurrency: true }, () => {
  const env = newDatabase()
  before(async () => {
    await json(['user', 'create', '--screen-name', 'taken', '--password', 'long enough password'], env)
    await json(['app', 'create', '--name', 'Taken App', '--owner', 'taken'], env)
  })

  const cases: Array<[string, string[], RegExp, Record<string, string>?]> = [
    ['an unknown command', ['frobnicate'], /unknown command/],
    ['a misspelled command', ['users'], /unknown command 'users'/],
    ['a missing required option', ['user', 'create', '--screen-name', 'bob'], /--password/],
    ['an unknown option', ['user', 'list', '--colour'], /--colour/],
    ['a bad screen name', ['user', 'create', '--screen-name', 'no-dashes', '--password', 'long enough password'], /screen name/],
    ['a duplicate screen name, in another case', ['user', 'create', '--screen-name', 'TAKEN', '--password', 'long enough password'], /taken/],
    ['an unknown owner', ['app', 'create', '--name', 'X', '--owner', 'nobody'], /nobody/],
    ['a bad access level', ['app', 'create', '--name', 'X', '--owner', 'taken', '--access-level', 'admin'], /access level/],
    ['a javascript: callback', ['app', 'create', '--name', 'X', '--owner', 'taken', '--callback', 'javascript:alert(1)'], /callback/],
    ['an app name the owner already uses, in another case', ['app', 'create', '--name', 'TAKEN APP', '--owner', 'taken'], /already has an app named TAKEN APP/],
    ['an unknown app', ['app', 'show', '12345'], /12345/],
    ['a missing app argument', ['app', 'rotate-keys'], /app/],
    ['a bad config value', ['serve'], /LATCHKEY_PORT/, { LATCHKEY_PORT: 'abc' }],
    ['plain HTTP in production', ['serve', '--port', '0'], /HTTPS/],
    ['development mode on a public address', ['serve', '--dev', '--host', '0.0.0.0', '--port', '0'], /host/],
  ]
  for (const [what, args, message, extraEnv] of cases) {
    test(what, async () => {
      assertRefusal(await runCli(args, { ...env, ...extraEnv }), message)
    })
  }
})
