import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { isPostgresUrl } from '../../src/storage/urls.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { errorCode, send, signedFetch } from '../helpers/oauth1-client.ts'
import { startServe, type ServeProcess } from '../helpers/serve-process.ts'
import { openTestDomain, type TestDomain } from '../helpers/test-app.ts'

const basic = (app: AppRecord) => `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`
const FORM = 'application/x-www-form-urlencoded'

/** The same server, started on the test's database; on PostgreSQL with its Redis prefix. */
function serve(storage: TestDomain): Promise<ServeProcess> {
  const args = ['--dev', '--port', '0', '--database', storage.dbPath, '--rate-limit-multiplier', '1000', '--log-level', 'warn']
  if (storage.redis) args.push('--redis', storage.redis.url, '--redis-key-prefix', storage.redis.keyPrefix)
  return startServe(args)
}

interface Outcome {
  /** Bearer tokens whose issue was answered 200 and that were not invalidated after. */
  liveBearers: Map<string, AppRecord>
  /** Tokens whose invalidation was answered 200. */
  deadBearers: Map<string, AppRecord>
  deadAccessTokens: Array<{ app: AppRecord; token: { key: string; secret: string } }>
}

/**
 * Issues and invalidates tokens in a loop on many apps at once until `stop` is set; records only
 * what the server answered 200, since those answers are the promises that must survive a crash.
 */
async function load(url: string, apps: AppRecord[], owners: Map<string, { key: string; secret: string }>, stop: () => boolean, outcome: Outcome): Promise<Outcome> {
  const worker = async (app: AppRecord) => {
    let invalidatedOwner = false
    /** A token whose invalidation was sent: until it is answered, it may be dead or alive. */
    let invalidating: string | undefined
    while (!stop()) {
      try {
        const issued = await send({ method: 'POST', url: `${url}/oauth2/token`, headers: { authorization: basic(app), 'content-type': FORM }, body: 'grant_type=client_credentials' })
        if (issued.status !== 200) continue
        const token = issued.json.access_token as string
        outcome.liveBearers.set(token, app)
        if (stop()) break
        invalidating = token
        const invalidated = await send({ method: 'POST', url: `${url}/oauth2/invalidate_token`, headers: { authorization: basic(app), 'content-type': FORM }, body: `access_token=${encodeURIComponent(token)}` })
        if (invalidated.status === 200) {
          outcome.liveBearers.delete(token)
          outcome.deadBearers.set(token, app)
        }
        invalidating = undefined
        if (!invalidatedOwner) {
          const owner = owners.get(app.id)!
          const answer = await signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, token: owner, url: `${url}/1.1/oauth/invalidate_token.json` })
          if (answer.status === 200) {
            invalidatedOwner = true
            outcome.deadAccessTokens.push({ app, token: owner })
          }
        }
      } catch {
        // The connection died with the server: whatever was not answered promised nothing, and an
        // invalidation in flight may have been done or not, so its token is neither live nor dead.
        if (invalidating !== undefined) outcome.liveBearers.delete(invalidating)
        break
      }
    }
  }
  await Promise.all(apps.map(worker))
  return outcome
}

describe('a crash in the middle of issuing and invalidating (SIGKILL)', () => {
  let storage: TestDomain
  let apps: AppRecord[]
  const owners = new Map<string, { key: string; secret: string }>()

  before(async () => {
    storage = await openTestDomain()
    apps = []
    for (let i = 0; i < 12; i++) {
      const app = await makeApp(storage.domain)
      const { token } = await issueOwnerToken(storage.domain, app.id)
      owners.set(app.id, { key: token.token, secret: token.secret })
      apps.push(app)
    }
    // The server owns the database from here on; the test keeps only what it wrote.
    await storage.domain.runtime.close()
  })
  after(async () => {
    await storage.close().catch(() => undefined)
  })

  test('every token answered 200 works, every invalidation answered 200 holds, and the database is intact', async () => {
    const first = await serve(storage)
    let stopped = false
    const outcome: Outcome = { liveBearers: new Map(), deadBearers: new Map(), deadAccessTokens: [] }
    const running = load(first.url, apps, owners, () => stopped, outcome)
    // Let the load make enough promises, then kill the process without warning.
    const deadline = Date.now() + 20_000
    while (outcome.deadBearers.size < 60 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    const exited = once(first.child, 'exit')
    first.child.kill('SIGKILL')
    await exited
    stopped = true
    await running
    assert.ok(outcome.deadBearers.size + outcome.liveBearers.size > 10, `the load made promises (${outcome.deadBearers.size} invalidated, ${outcome.liveBearers.size} live)`)

    if (!isPostgresUrl(storage.dbPath)) {
      const db = new Sqlite(storage.dbPath)
      try {
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
      } finally {
        db.close()
      }
    }

    const second = await serve(storage)
    try {
      for (const [token, app] of outcome.liveBearers) {
        const use = await send({ method: 'GET', url: `${second.url}/1.1/application/rate_limit_status.json?resources=oauth2`, headers: { authorization: `Bearer ${token}` } })
        assert.equal(use.status, 200, `a bearer token answered 200 before the crash works after it (app ${app.id})`)
      }
      for (const [token] of outcome.deadBearers) {
        const use = await send({ method: 'GET', url: `${second.url}/1.1/application/rate_limit_status.json`, headers: { authorization: `Bearer ${token}` } })
        assert.equal(errorCode(use), 89, 'an invalidation answered 200 before the crash holds after it')
      }
      for (const { app, token } of outcome.deadAccessTokens) {
        const use = await signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, token, method: 'GET', url: `${second.url}/1.1/account/verify_credentials.json` })
        assert.equal(errorCode(use), 89)
      }
    } finally {
      await second.stop()
    }
  })
})
