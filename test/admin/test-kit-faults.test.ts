// The control calls of X's failures on demand and the request journal (src/admin/routes/test-kit-faults.ts),
// registered as test mode registers them, over the admin API; their effect seen on the public service.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { compileErrors, validate } from '@readme/openapi-parser'
import { testFaultRoutes, testJournalRoutes } from '../../src/admin/routes/test-kit-faults.ts'
import { createFaultQueue } from '../../src/web/test-kit/faults.ts'
import { createRequestJournal } from '../../src/web/test-kit/journal.ts'
import { injectedAdminTestServer, type AdminTestServer } from '../helpers/admin.ts'
import { issueEveryCredential, type EveryCredential } from '../helpers/fixtures.ts'

const FAULTS = '/admin/v1/test/faults'
const REQUESTS = '/admin/v1/test/requests'
const VERIFY = 'GET /1.1/account/verify_credentials.json'

describe('/admin/v1/test/faults and /admin/v1/test/requests (test mode)', () => {
  let server: AdminTestServer
  let issued: EveryCredential
  before(async () => {
    const faults = createFaultQueue()
    const journal = createRequestJournal()
    server = await injectedAdminTestServer({ testKit: { faults, journal }, adminRoutes: [testFaultRoutes(faults), testJournalRoutes(journal)] })
    issued = await issueEveryCredential(server.domain)
  })
  after(() => server.close())
  const verify = () => server.signedFetch({ consumer: issued.consumer, token: issued.token, method: 'GET', url: `${server.url}/1.1/account/verify_credentials.json` })

  test('POST adds a fault (201) that the next call gets; GET lists what is left; DELETE (204) forgets them', async () => {
    const added = await server.admin('POST', FAULTS, { endpoint: VERIFY, times: 2, kind: 'over_capacity' })
    assert.equal(added.status, 201, added.text)
    assert.deepEqual(added.json, { id: added.json.id, endpoint: VERIFY, times: 2, remaining: 2, kind: 'over_capacity' })
    assert.equal((await verify()).status, 503)
    assert.deepEqual((await server.admin('GET', FAULTS)).json.data.map((fault: { remaining: number }) => fault.remaining), [1])
    const cleared = await server.admin('DELETE', FAULTS)
    assert.equal(cleared.status, 204)
    assert.deepEqual((await server.admin('GET', FAULTS)).json, { data: [] })
    assert.equal((await verify()).status, 200, 'a forgotten fault fails nothing')
  })

  test('a custom fault: its status, code and message', async () => {
    const added = await server.admin('POST', FAULTS, { endpoint: VERIFY, times: 1, kind: 'custom', status: 403, code: 64, message: 'Your account is suspended and is not permitted to access this feature.' })
    assert.equal(added.status, 201, added.text)
    const refused = await verify()
    assert.deepEqual([refused.status, refused.json], [403, { errors: [{ code: 64, message: 'Your account is suspended and is not permitted to access this feature.' }] }])
  })

  test('a bad body is a 400 problem document naming the field, and adds nothing', async () => {
    const bodies: Array<[unknown, string]> = [
      [{ endpoint: VERIFY, times: 1, kind: 'flaky' }, 'kind'],
      [{ endpoint: VERIFY, times: 0, kind: 'over_capacity' }, 'times'],
      [{ endpoint: '/oauth2/token', times: 1, kind: 'over_capacity' }, 'endpoint'],
      [{ endpoint: 'GET /oauth2/token', times: 1, kind: 'over_capacity' }, 'endpoint'],
      [{ endpoint: 'POST /1.1/account/verify_credential.json', times: 1, kind: 'over_capacity' }, 'endpoint'],
      [{ endpoint: VERIFY, times: 1, kind: 'custom' }, 'status'],
      [{ endpoint: VERIFY, times: 1, kind: 'custom', status: 200 }, 'status'],
      [{ endpoint: VERIFY, times: 1, kind: 'custom', status: 400, message: 'a\u0000b' }, 'message'],
      [{ endpoint: VERIFY, times: 1, kind: 'rate_limited', status: 500 }, 'status'],
      [{ endpoint: VERIFY, times: 1, kind: 'rate_limited', extra: true }, 'extra'],
    ]
    for (const [body, field] of bodies) {
      const answer = await server.admin('POST', FAULTS, body)
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`)
      assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/)
      assert.ok(answer.json.errors.some((error: { field: string }) => error.field === field), `${JSON.stringify(body)}: ${answer.text}`)
    }
    const notJson = await server.admin('POST', FAULTS, undefined, { rawBody: '{', contentType: 'application/json' })
    assert.equal(notJson.status, 400)
    assert.deepEqual((await server.admin('GET', FAULTS)).json, { data: [] })
    assert.equal((await server.admin('POST', FAULTS, { endpoint: VERIFY, times: 1, kind: 'rate_limited' })).status, 201, 'its twin is added')
    await server.admin('DELETE', FAULTS)
  })

  test('GET requests filters the journal, a bad filter is a 400, DELETE empties it', async () => {
    await server.admin('DELETE', REQUESTS)
    await server.admin('POST', FAULTS, { endpoint: VERIFY, times: 1, kind: 'too_often' })
    await verify()
    await verify()
    const all = await server.admin('GET', REQUESTS)
    assert.equal(all.status, 200, all.text)
    assert.deepEqual(all.json.data.map((entry: { outcome: string }) => entry.outcome), ['accepted', 'injected'])
    const injected = (await server.admin('GET', `${REQUESTS}?outcome=injected&endpoint=${encodeURIComponent(VERIFY)}`)).json.data
    assert.equal(injected.length, 1)
    assert.deepEqual(injected[0].error, { code: 99, message: 'Unable to verify your credentials' })
    assert.deepEqual([injected[0].oauth1, injected[0].app], [null, null], 'an injected call never reached the verifier')
    assert.deepEqual((await server.admin('GET', `${REQUESTS}?app=${issued.consumer.key}`)).json.data.map((entry: { outcome: string }) => entry.outcome), ['accepted'])
    assert.equal((await server.admin('GET', `${REQUESTS}?app=nobody`)).json.data.length, 0)
    const accepted = (await server.admin('GET', `${REQUESTS}?outcome=accepted`)).json.data[0]
    assert.equal(accepted.app.id, issued.app.id)
    assert.match(accepted.oauth1.base_string, /oauth_token%3D%255Bhidden%255D/)
    assert.equal((await server.admin('GET', `${REQUESTS}?outcome=maybe`)).status, 400)
    assert.equal((await server.admin('GET', `${REQUESTS}?colour=red`)).status, 400)
    assert.equal((await server.admin('DELETE', REQUESTS)).status, 204)
    assert.deepEqual((await server.admin('GET', REQUESTS)).json, { data: [] })
  })

  test('needs an admin token, and the OpenAPI document names the routes and stays valid OpenAPI 3.1', async () => {
    for (const [method, path] of [['POST', FAULTS], ['GET', FAULTS], ['DELETE', FAULTS], ['GET', REQUESTS], ['DELETE', REQUESTS]] as const) {
      const anonymous = await server.admin(method, path, method === 'POST' ? { endpoint: VERIFY, times: 1, kind: 'over_capacity' } : undefined, { auth: null })
      assert.equal(anonymous.status, 401, `${method} ${path}`)
    }
    assert.deepEqual((await server.admin('GET', FAULTS)).json, { data: [] }, 'the anonymous POST added nothing')
    const document = (await server.admin('GET', '/admin/v1/openapi.json')).json
    assert.deepEqual([document.paths[FAULTS]?.post?.operationId, document.paths[REQUESTS]?.get?.operationId], ['testAddFault', 'testListRequests'])
    const result = await validate(document)
    assert.ok(result.valid, result.valid ? '' : compileErrors(result))
  })
})
