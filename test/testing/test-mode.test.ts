// Issue 47: the test mode, as a client's test suite meets it — `latchkey serve --test` as a process
// (its one start line, nothing left behind, its refusals), and its clock and reset over real HTTP.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { loadConfig } from '../../src/config/load.ts'
import { findByScreenName } from '../../src/domain/registry/users.ts'
import type { RunningServer } from '../../src/server.ts'
import { startTestMode, type TestStartLine } from '../../src/testing.ts'
import { REPO_ROOT, cliEnv } from '../helpers/cli.ts'
import { issueEveryCredential, makeApp, makeUser } from '../helpers/fixtures.ts'
import { send, signRequest } from '../helpers/oauth1-client.ts'
import { REDIRECT, allowedCode, oauth2Client, type OAuth2Client } from '../helpers/oauth2-user.ts'
import { injectedAdminTestServer } from '../helpers/admin.ts'

const BIN = join(REPO_ROOT, 'bin/latchkey.js')

/** A seed with every OAuth 1.0a value fixed, and a limit of its own for verify_credentials. */
const FIXED = {
  consumer: { key: 'LatchkeyTestConsumerKey1', secret: 'S'.repeat(45) },
  token: { key: `1234567890-${'T'.repeat(35)}`, secret: 'U'.repeat(42) },
}
const SEED = {
  people: [{ screen_name: 'alice', user_id: '1234567890', password: 'correct horse battery' }],
  apps: [{ name: 'Client', owner: 'alice', access_level: 'read-write', callbacks: ['https://client.example/cb'], consumer_key: FIXED.consumer.key, consumer_secret: FIXED.consumer.secret }],
  credentials: { access_tokens: [{ app: 'Client', person: 'alice', token: FIXED.token.key, secret: FIXED.token.secret }] },
  limits: { endpoints: { '/account/verify_credentials': 2 } },
}

/** Runs `latchkey serve ...args` in `cwd` until it exits or `until` says so; its stdout and stderr. */
async function runServe(args: string[], cwd: string, until?: (stdout: string) => boolean) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd, env: cliEnv({}) })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const closed = once(child, 'close') as Promise<[number | null]>
  if (until) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start line within 30 s: ${stdout}${stderr}`)), 30_000)
      child.stdout.on('data', () => until(stdout) && (clearTimeout(timer), resolve()))
      child.once('close', () => (clearTimeout(timer), reject(new Error(`exited before its start line: ${stderr}`))))
    })
  }
  return { child, closed, output: () => ({ stdout, stderr }) }
}

describe('latchkey serve --test, as a process', () => {
  test('one JSON line on stdout (its addresses and an admin token that works), the log on stderr, and nothing left behind once stopped', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'latchkey-test-mode-'))
    try {
      // Two at once in one folder, as parallel test files start them: each its own database.
      const [serve, beside] = await Promise.all([1, 2].map(() => runServe(['--test'], cwd, (stdout) => stdout.includes('\n'))))
      beside!.child.kill('SIGTERM')
      assert.equal((await beside!.closed)[0], 0)
      const line = JSON.parse(serve!.output().stdout) as TestStartLine
      assert.deepEqual(Object.keys(line).sort(), ['admin_token', 'admin_url', 'seeded', 'url'])
      assert.equal(line.seeded, null)
      assert.match(line.url, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.match(line.admin_url, /^http:\/\/127\.0\.0\.1:\d+$/)
      assert.equal((await fetch(`${line.url}/healthz`)).status, 200)
      const clock = await fetch(`${line.admin_url}/admin/v1/test/clock`, { headers: { authorization: `Bearer ${line.admin_token}` } })
      assert.equal(clock.status, 200)
      assert.equal((await fetch(`${line.admin_url}/admin/v1/test/clock`)).status, 401, 'the control calls need the admin token')
      serve!.child.kill('SIGTERM')
      const [code] = await serve!.closed
      assert.equal(code, 0)
      assert.equal(serve!.output().stdout.trim().split('\n').length, 1, 'stdout holds the start line only')
      assert.deepEqual(readdirSync(cwd), [], 'no database, key file or lock left in its folder')
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })

  test('--seed: the start line says what was seeded, and the fixed credentials sign a request that passes; the seed\'s limits are the limits', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'latchkey-test-mode-'))
    try {
      writeFileSync(join(cwd, 'seed.json'), JSON.stringify(SEED))
      const serve = await runServe(['--test', '--seed', 'seed.json'], cwd, (stdout) => stdout.includes('\n'))
      try {
        const line = JSON.parse(serve.output().stdout) as TestStartLine
        assert.equal(line.seeded?.people[0]?.user_id, '1234567890')
        assert.equal(line.seeded?.apps[0]?.consumer_key, SEED.apps[0]!.consumer_key)
        const signed = () => send(signRequest({ ...FIXED, method: 'GET', url: `${line.url}/1.1/account/verify_credentials.json` }))
        const verified = await signed()
        assert.equal(verified.status, 200, verified.text)
        assert.equal(verified.json.screen_name, 'alice')
        assert.equal(verified.headers.get('x-rate-limit-limit'), '2', "the seed's limit for the endpoint")
        assert.equal((await signed()).status, 200)
        assert.equal((await signed()).status, 429)
      } finally {
        serve.child.kill('SIGTERM')
        await serve.closed
      }
      writeFileSync(join(cwd, 'bad.json'), JSON.stringify({ ...SEED, apps: [{ ...SEED.apps[0], callbacks: ['https://ok.example/cb', 'not a url'] }] }))
      const refused = await runServe(['--test', '--seed', 'bad.json'], cwd)
      assert.notEqual((await refused.closed)[0], 0)
      assert.match(refused.output().stderr.trim(), /^latchkey: invalid setting seed: apps\[0\]\.callbacks\[1\]: /)
      const nobody = await runServe(['--test', '--auto-consent', 'nobody'], cwd)
      assert.notEqual((await nobody.closed)[0], 0)
      assert.match(nobody.output().stderr.trim(), /^latchkey: invalid setting autoConsent \(nobody\): no person has that screen name/)
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })

  test('refused, in one line and before listening, on another address, with PostgreSQL or beside --dev', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'latchkey-test-mode-'))
    try {
      for (const [args, says] of [
        [['--host', '0.0.0.0'], /^latchkey: invalid setting host \(0\.0\.0\.0\): the test mode \(--test\) listens on a loopback address only$/],
        [['--database', 'postgres://127.0.0.1/test'], /not PostgreSQL/],
        [['--dev'], /give --test or --dev, not both/],
      ] as const) {
        const serve = await runServe(['--test', ...args], cwd)
        const [code] = await serve.closed
        assert.notEqual(code, 0)
        assert.match(serve.output().stderr.trim(), says)
        assert.equal(serve.output().stdout, '')
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true })
    }
  })
})

describe('the test mode over HTTP: its clock and its reset', () => {
  let server: RunningServer
  let line: TestStartLine
  before(async () => {
    ;({ server, startLine: line } = await startTestMode(loadConfig({ env: {}, flags: { test: true, bearerTokenCallsPerWindow: 2 } })))
  })
  after(() => server?.close())

  const control = async (method: string, path: string, body?: object) => {
    const answer = await fetch(`${line.admin_url}/admin/v1/test/${path}`, {
      method,
      headers: { authorization: `Bearer ${line.admin_token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    return { status: answer.status, json: answer.status === 204 ? undefined : ((await answer.json()) as Record<string, unknown>) }
  }
  const advance = async (seconds: number) => assert.equal((await control('POST', 'clock', { advance_seconds: seconds })).status, 200)
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    send({ method: 'POST', url: `${line.url}${path}`, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body })
  const me = (token: string) => send({ method: 'GET', url: `${line.url}/2/users/me`, headers: { authorization: `Bearer ${token}` } })
  const exchange = (client: OAuth2Client, issued: { code: string; verifier: string }) =>
    post('/2/oauth2/token', form({ grant_type: 'authorization_code', code: issued.code, redirect_uri: REDIRECT, code_verifier: issued.verifier, client_id: client.clientId }))
  const bearerFor = (app: { consumerKey: string; consumerSecret: string }) =>
    post('/oauth2/token', 'grant_type=client_credentials', { authorization: `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}` })
  /** A signed verify_credentials, stamped with the service's clock. */
  const verify = (consumer: { key: string; secret: string }, token: { key: string; secret: string }) =>
    send(signRequest({ consumer, token, method: 'GET', url: `${line.url}/1.1/account/verify_credentials.json`, timestamp: Math.floor(server.testKit!.clock.nowMs() / 1000) }))

  test('reset goes back to the state kept (at start, or after seeding): what was made since is gone, every limit count forgotten, the admin token kept', async () => {
    // An app kept as a seed keeps it; what is made after it does not survive the reset.
    const kept = await issueEveryCredential(server.domain)
    await server.testKit!.keep()
    const { app, consumer, token } = await issueEveryCredential(server.domain)
    assert.equal((await verify(consumer, token)).status, 200)
    assert.equal((await bearerFor(kept.app)).status, 200)
    assert.equal((await bearerFor(kept.app)).status, 200)
    const paced = await bearerFor(kept.app)
    assert.equal(paced.status, 403, 'the pace rule (2 calls a window here) counts')
    assert.equal(paced.json?.errors?.[0]?.code, 99)
    assert.equal((await control('POST', 'reset')).status, 204)
    const after = await verify(consumer, token)
    assert.equal(after.status, 401, after.text)
    assert.equal(after.json?.errors?.[0]?.code, 89)
    assert.equal(await server.domain.stores.apps.findById(app.id), undefined)
    const keptVerify = await verify(kept.consumer, kept.token)
    assert.equal(keptVerify.status, 200, `what was kept works: ${keptVerify.text} ${keptVerify.headers.get('x-latchkey-reason')}`)
    assert.equal((await bearerFor(kept.app)).status, 200, "the kept app's pace count was forgotten")
    assert.equal((await control('GET', 'clock')).status, 200, 'the admin token outlives the reset')
  })

  test("the clock: a code past its 30 s is invalid_request, a user token past its two hours gets X's v2 401, a rate-limit window ends with it", async () => {
    const client = await oauth2Client(server.domain, { type: 'public' })
    const { user } = await makeUser(server.domain)
    const late = await allowedCode(server.domain, client, user)
    await advance(31)
    const refused = await exchange(client, late)
    assert.equal(refused.status, 400, refused.text)
    assert.equal(refused.json?.error, 'invalid_request')

    const tokens = (await exchange(client, await allowedCode(server.domain, client, user))).json as { access_token: string }
    assert.equal((await me(tokens.access_token)).status, 200)
    await advance(2 * 3600 - 1)
    assert.equal((await me(tokens.access_token)).status, 200, 'a second before its two hours')
    await advance(1)
    const expired = await me(tokens.access_token)
    assert.equal(expired.status, 401)
    assert.deepEqual(expired.json, (await me('not-a-token')).json, "X's v2 401, as for any token it does not know")

    const { app } = await issueEveryCredential(server.domain)
    for (let i = 0; i < 2; i++) assert.equal((await bearerFor(app)).status, 200)
    assert.equal((await bearerFor(app)).status, 403)
    await advance(15 * 60)
    assert.equal((await bearerFor(app)).status, 200, 'the pace window (15 minutes) ended on the moved clock')
    const clock = (await control('GET', 'clock')).json!
    assert.ok(Number(clock.offset_seconds) >= 31 + 2 * 3600 + 15 * 60)
  })

  test('the clock is moved forward or set, never back before the start; a bad body changes nothing', async () => {
    const before = (await control('GET', 'clock')).json!
    const set = await control('POST', 'clock', { set: new Date(Number(before.now_ms) + 86_400_000).toISOString() })
    assert.equal(set.status, 200)
    assert.ok(Math.abs(Number(set.json!.now_ms) - (Number(before.now_ms) + 86_400_000)) < 5_000)
    for (const body of [{ set: '2020-01-01T00:00:00Z' }, { advance_seconds: -5 }, { advance_seconds: 5, set: set.json!.now }, {}, { speed: 2 }]) {
      const answer = await control('POST', 'clock', body)
      assert.equal(answer.status, 400, JSON.stringify(body))
      assert.equal(answer.json!.type, 'urn:latchkey:problem:validation')
    }
    assert.ok(Math.abs(Number((await control('GET', 'clock')).json!.now_ms) - Number(set.json!.now_ms)) < 5_000, 'nothing moved')
  })

  test('a seed posted later is part of what reset goes back to; one that names limits is refused (they are set at start)', async () => {
    const seeded = await control('POST', 'seed', { people: [{ screen_name: 'later' }], apps: [{ name: 'Later app', owner: 'later' }] })
    assert.equal(seeded.status, 200, JSON.stringify(seeded.json))
    const appId = (seeded.json!.apps as Array<{ app_id: string }>)[0]!.app_id
    assert.equal((await control('POST', 'reset')).status, 204)
    assert.ok(await server.domain.stores.apps.findById(appId), 'the seeded app survives the reset')
    const withLimits = await control('POST', 'seed', { people: [{ screen_name: 'limited' }], limits: { multiplier: 2 } })
    assert.equal(withLimits.status, 400)
    assert.deepEqual(withLimits.json!.errors, [{ in: 'body', field: 'limits', detail: 'is taken at start only' }])
    assert.equal(await findByScreenName(server.domain, 'limited'), undefined, 'nothing written')
  })

  test("a failure injected through the test mode answers as X does once, is in the journal, and reset forgets faults and journal alike", async () => {
    const { app } = await issueEveryCredential(server.domain)
    const added = await control('POST', 'faults', { endpoint: 'POST /oauth2/token', kind: 'over_capacity', times: 1 })
    assert.equal(added.status, 201, JSON.stringify(added.json))
    const injected = await bearerFor(app)
    assert.equal(injected.status, 503)
    assert.equal(injected.json?.errors?.[0]?.code, 130)
    assert.equal((await bearerFor(app)).status, 200, 'the next call is normal')
    const journal = (await control('GET', 'requests?endpoint=/oauth2/token')).json!.data as Array<{ outcome: string; status: number }>
    assert.deepEqual(journal.map((entry) => [entry.outcome, entry.status]), [['accepted', 200], ['injected', 503]])
    assert.equal((await control('POST', 'faults', { endpoint: 'POST /oauth2/token', kind: 'over_capacity', times: 5 })).status, 201)
    assert.equal((await control('POST', 'reset')).status, 204)
    assert.deepEqual((await control('GET', 'faults')).json!.data, [], 'no fault left')
    assert.deepEqual((await control('GET', 'requests')).json!.data, [], 'the journal is empty')
  })

  test('its OpenAPI document describes the control calls', async () => {
    const document = (await (await fetch(`${line.admin_url}/admin/v1/openapi.json`, { headers: { authorization: `Bearer ${line.admin_token}` } })).json()) as { paths: object }
    assert.deepEqual(Object.keys(document.paths).filter((path) => path.startsWith('/admin/v1/test/')).sort(), ['/admin/v1/test/clock', '/admin/v1/test/consent/oauth1', '/admin/v1/test/consent/oauth2', '/admin/v1/test/faults', '/admin/v1/test/requests', '/admin/v1/test/reset', '/admin/v1/test/seed'])
  })
})

describe('the test mode with --auto-consent, and its consent control call', () => {
  test('an authorize page redirects at once as the person named; the control call answers a request token as a person; both verifiers exchange', async () => {
    // The person --auto-consent names must exist once the seed is applied.
    const { server, startLine } = await startTestMode(loadConfig({ env: {}, flags: { test: true, autoConsent: 'alice' } }), { people: [{ screen_name: 'alice' }] })
    try {
      const app = await makeApp(server.domain, { callbackUrls: ['http://127.0.0.1:9/callback'] })
      const consumer = { key: app.consumerKey, secret: app.consumerSecret }
      const requestToken = async () => {
        const answer = await send(signRequest({ consumer, url: `${startLine.url}/oauth/request_token`, oauth: { oauth_callback: 'http://127.0.0.1:9/callback' } }))
        assert.equal(answer.status, 200, answer.text)
        return { key: answer.form.oauth_token!, secret: answer.form.oauth_token_secret! }
      }
      const exchange = async (token: { key: string; secret: string }, verifier: string) =>
        send(signRequest({ consumer, token, url: `${startLine.url}/oauth/access_token`, oauth: { oauth_verifier: verifier } }))

      const viaPage = await requestToken()
      const page = await fetch(`${startLine.url}/oauth/authorize?oauth_token=${viaPage.key}`, { redirect: 'manual' })
      assert.equal(page.status, 302)
      const pageVerifier = new URL(page.headers.get('location')!).searchParams.get('oauth_verifier')!
      assert.equal((await exchange(viaPage, pageVerifier)).status, 200)

      const viaCall = await requestToken()
      const call = await fetch(`${startLine.admin_url}/admin/v1/test/consent/oauth1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${startLine.admin_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ oauth_token: viaCall.key, screen_name: 'alice', decision: 'allow' }),
      })
      assert.equal(call.status, 200)
      const { location } = (await call.json()) as { location: string }
      assert.equal((await exchange(viaCall, new URL(location).searchParams.get('oauth_verifier')!)).status, 200)
    } finally {
      await server.close()
    }
  })
})

describe('outside the test mode', () => {
  test('every control path answers 404, and the OpenAPI document names none', async () => {
    const server = await injectedAdminTestServer()
    try {
      for (const [method, path] of [['GET', 'clock'], ['POST', 'clock'], ['POST', 'reset'], ['POST', 'consent/oauth1'], ['POST', 'consent/oauth2'], ['POST', 'seed'], ['POST', 'faults'], ['GET', 'faults'], ['GET', 'requests'], ['DELETE', 'requests']] as const) {
        const answer = await server.admin(method, `/admin/v1/test/${path}`, method === 'POST' ? {} : undefined)
        assert.equal(answer.status, 404, `${method} ${path}`)
      }
      const document = (await server.admin('GET', '/admin/v1/openapi.json')).json as { paths: object }
      assert.deepEqual(Object.keys(document.paths).filter((path) => path.includes('/test/')), [])
    } finally {
      await server.close()
    }
  })
})
