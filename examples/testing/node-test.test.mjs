// node --test examples/testing/node-test.test.mjs
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { startLatchkey } from 'latchkey/testing'
import { authorizeRequest, exchange, me } from './flow.mjs'

const seed = JSON.parse(readFileSync(new URL('./seed.json', import.meta.url), 'utf8'))
let latchkey
before(async () => {
  latchkey = await startLatchkey({ seed })
})
after(() => latchkey.close())

test('the client signs alice in with OAuth 2.0 and PKCE, and her token ends after two hours', async () => {
  const clientId = latchkey.seeded.apps[0].client_id
  const { query, verifier } = authorizeRequest(clientId)
  const { location } = await latchkey.consent({ query, screenName: 'alice', decision: 'allow' })
  const tokens = await exchange(latchkey.url, clientId, location, verifier)
  assert.equal((await me(latchkey.url, tokens.access_token)).body.data.username, 'alice')
  latchkey.clock.advance(2 * 3600)
  assert.equal((await me(latchkey.url, tokens.access_token)).status, 401)
})

test('after a reset, the token of the test before is gone', async () => {
  const clientId = latchkey.seeded.apps[0].client_id
  const { query, verifier } = authorizeRequest(clientId)
  const { location } = await latchkey.consent({ query, screenName: 'alice', decision: 'allow' })
  const tokens = await exchange(latchkey.url, clientId, location, verifier)
  await latchkey.reset()
  assert.equal((await me(latchkey.url, tokens.access_token)).status, 401)
})
