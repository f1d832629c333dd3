import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import type { AppRecord, AuditEventRecord } from '../../src/storage/records.ts'
import { isPostgresUrl } from '../../src/storage/urls.ts'
import { runSql } from '../helpers/backends.ts'
import { makeApp, makeUser } from '../helpers/fixtures.ts'
import { authorizedRequestToken } from '../helpers/flow.ts'

import { countRows, injectedTestServer, type TestServer } from '../helpers/test-app.ts'

// The security rule of the audit trail: no credential is handed out, nor kept, without its row.
// Each issue and its row are one transaction; here the database itself refuses the row (a trigger).

const FORM = 'application/x-www-form-urlencoded'
const basic = (app: AppRecord) => `Basic ${Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString('base64')}`

/** Makes the database refuse every new audit row until the returned function is called. */
async function refuseAuditRows(dbPath: string): Promise<() => Promise<void>> {
  if (isPostgresUrl(dbPath)) {
    await runSql(
      dbPath,
      `create function audit_refused() returns trigger language plpgsql as $$ begin raise exception 'audit row refused by the test'; end $$;
       create trigger audit_refused before insert on audit_events for each row execute function audit_refused()`,
    )
    return async () => void (await runSql(dbPath, 'drop trigger audit_refused on audit_events; drop function audit_refused()'))
  }
  const run = (text: string) => {
    const db = new Sqlite(dbPath)
    try {
      db.exec(text)
    } finally {
      db.close()
    }
  }
  run(`create trigger audit_refused before insert on audit_events begin select raise(abort, 'audit row refused by the test'); end`)
  return async () => run('drop trigger audit_refused')
}

describe('issuing a credential and its audit row', () => {
  let server: TestServer
  before(async () => {
    server = await injectedTestServer()
  })
  after(() => server.close())

  const tokenCall = (app: AppRecord) =>
    server.send({ method: 'POST', url: `${server.url}/oauth2/token`, headers: { authorization: basic(app), 'content-type': FORM }, body: 'grant_type=client_credentials' })
  const requestTokenCall = (app: AppRecord) =>
    server.signedFetch({ consumer: { key: app.consumerKey, secret: app.consumerSecret }, url: `${server.url}/oauth/request_token`, oauth: { oauth_callback: 'oob' } })
  const bearerEvents = async (app: AppRecord): Promise<AuditEventRecord[]> =>
    (await server.domain.stores.audit.list({ appId: app.id, limit: 1000 })).filter((e) => e.event === 'bearer_token.issued')

  test('request_token: when the audit row cannot be written, the call fails and no request token is left', async () => {
    const app = await makeApp(server.domain)
    const before = await countRows(server.dbPath, 'request_tokens')
    const allow = await refuseAuditRows(server.dbPath)
    try {
      const answer = await requestTokenCall(app)
      assert.ok(answer.status >= 500, `${answer.status} ${answer.text}`)
      assert.equal(await countRows(server.dbPath, 'request_tokens'), before)
    } finally {
      await allow()
    }
    assert.equal((await requestTokenCall(app)).status, 200)
    assert.equal(await countRows(server.dbPath, 'request_tokens'), before + 1)
  })

  test('oauth2/token: when the audit row of the first call cannot be written, no bearer token is left', async () => {
    const app = await makeApp(server.domain)
    const allow = await refuseAuditRows(server.dbPath)
    try {
      const answer = await tokenCall(app)
      assert.ok(answer.status >= 500, `${answer.status} ${answer.text}`)
      assert.equal(await server.domain.stores.bearerTokens.findLive(app.id), undefined)
    } finally {
      await allow()
    }
    const answer = await tokenCall(app)
    assert.equal(answer.status, 200)
    assert.equal((await server.domain.stores.bearerTokens.findLive(app.id))?.token, answer.json.access_token)
    assert.deepEqual((await bearerEvents(app)).map((e) => e.detail), [{ reused: false }])
  })

  /** Each row's count of hand-outs: a counted row says how many repeats it stands for. */
  const handOuts = (events: AuditEventRecord[]) => events.reduce((sum, e) => sum + (typeof e.detail?.count === 'number' ? e.detail.count : 1), 0)

  test('oauth2/token: repeats hand out the same token and write nothing per call; their row counts every one', async () => {
    const app = await makeApp(server.domain)
    const tokens = []
    for (let i = 0; i < 6; i++) tokens.push((await tokenCall(app)).json.access_token)
    assert.equal(new Set(tokens).size, 1)
    assert.deepEqual((await bearerEvents(app)).map((e) => e.detail), [{ reused: false }], 'the first hand-out only, so far')
    await server.domain.handOuts.flush()
    assert.equal((await bearerEvents(app)).length, 1, 'within the minute, nothing is written')
    await server.domain.handOuts.flush({ all: true })
    const events = (await bearerEvents(app)).reverse()
    assert.deepEqual(events.map((e) => e.detail), [{ reused: false }, { reused: true, count: 5 }])
    assert.equal((await server.domain.stores.bearerTokens.findLive(app.id))?.token, tokens[0])
  })

  test('oauth2/token: counted repeats whose row could not be written are counted into the next row', async () => {
    const app = await makeApp(server.domain)
    for (let i = 0; i < 4; i++) assert.equal((await tokenCall(app)).status, 200)
    const allow = await refuseAuditRows(server.dbPath)
    try {
      await server.domain.handOuts.flush({ all: true })
    } finally {
      await allow()
    }
    assert.equal((await bearerEvents(app)).length, 1, 'the refused row is not there')
    assert.equal((await tokenCall(app)).status, 200)
    await server.domain.handOuts.flush({ all: true })
    assert.deepEqual((await bearerEvents(app)).map((e) => e.detail).reverse(), [{ reused: false }, { reused: true, count: 4 }])
  })

  test('oauth2/token: of fifty concurrent first calls, one issues the token and all fifty are recorded', async () => {
    const app = await makeApp(server.domain)
    const answers = await Promise.all(Array.from({ length: 50 }, () => tokenCall(app)))
    assert.ok(answers.every((a) => a.status === 200))
    assert.equal(new Set(answers.map((a) => a.json.access_token)).size, 1)
    await server.domain.handOuts.flush({ all: true })
    const events = await bearerEvents(app)
    assert.equal(handOuts(events), 50)
    assert.equal(events.filter((e) => e.detail?.reused === false).length, 1)
  })

  test('access_token: when the audit row cannot be written, the request token is not used up and no access token is left', async () => {
    const app = await makeApp(server.domain)
    const { user } = await makeUser(server.domain)
    const rt = await authorizedRequestToken(server, app, user)
    const exchange = () =>
      server.signedFetch({
        consumer: { key: app.consumerKey, secret: app.consumerSecret },
        token: { key: rt.token, secret: rt.secret },
        url: `${server.url}/oauth/access_token`,
        oauth: { oauth_verifier: rt.verifier },
      })
    const allow = await refuseAuditRows(server.dbPath)
    try {
      const answer = await exchange()
      assert.ok(answer.status >= 500, `${answer.status} ${answer.text}`)
      assert.equal((await server.domain.stores.requestTokens.findByToken(rt.token))?.status, 'authorized')
      assert.equal(await server.domain.stores.accessTokens.findLive(app.id, user.id, app.accessLevel), undefined)
    } finally {
      await allow()
    }
    const answer = await exchange()
    assert.equal(answer.status, 200, answer.text)
    assert.equal((await server.domain.stores.accessTokens.findLive(app.id, user.id, app.accessLevel))?.token, answer.form.oauth_token)
    assert.equal((await server.domain.stores.requestTokens.findByToken(rt.token))?.status, 'used')
  })
})
