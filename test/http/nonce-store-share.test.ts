import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { issueOwnerToken } from '../../src/domain/registry/owner-token.ts'
import type { AppRecord } from '../../src/storage/records.ts'
import { makeApp } from '../helpers/fixtures.ts'
import { errorCode } from '../helpers/oauth1-client.ts'
import { injectedTestServer, type TestServer } from '../helpers/test-app.ts'

/**
 * A nonce store with a capacity of 20 (in memory on SQLite, in Redis on the PostgreSQL + Redis
 * pass): near full, the app that holds its share is refused, the others are served.
 */
describe('one app flooding the nonce store', () => {
  let server: TestServer
  let flooder: AppRecord
  let other: AppRecord
  const CAPACITY = 20

  before(async () => {
    server = await injectedTestServer({ settings: { nonceCapacity: CAPACITY } })
    flooder = await makeApp(server.domain)
    other = await makeApp(server.domain)
  })
  after(() => server.close())

  const verify = async (app: AppRecord) => {
    const { token } = await issueOwnerToken(server.domain, app.id)
    return () =>
      server.signedFetch({
        consumer: { key: app.consumerKey, secret: app.consumerSecret },
        token: { key: token.token, secret: token.secret },
        method: 'GET',
        url: `${server.url}/1.1/account/verify_credentials.json`,
      })
  }

  test('is refused with 503 code 130 once it holds its share, while another app still gets 200', async () => {
    const flood = await verify(flooder)
    const statuses: number[] = []
    for (let i = 0; i < CAPACITY; i++) statuses.push((await flood()).status)
    assert.deepEqual(statuses, [...Array<number>(18).fill(200), 503, 503], 'the flooder alone fills 90 % of the store')
    const refused = await flood()
    assert.equal(refused.status, 503)
    assert.equal(errorCode(refused), 130)

    const otherApp = await verify(other)
    for (let i = 0; i < 2; i++) {
      const answer = await otherApp()
      assert.equal(answer.status, 200, `the other app's request ${i}: ${answer.text}`)
    }
    assert.equal((await flood()).status, 503, 'the flooder is still refused')
  })
})
