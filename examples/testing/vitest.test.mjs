// npx vitest run examples/testing/vitest.test.mjs
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { startLatchkey } from 'latchkey/testing'
import { authorizeRequest, exchange, me } from './flow.mjs'

const seed = JSON.parse(readFileSync(new URL('./seed.json', import.meta.url), 'utf8'))
let latchkey
beforeAll(async () => {
  latchkey = await startLatchkey({ seed })
})
afterAll(() => latchkey.close())
beforeEach(() => latchkey.reset())

test('a denied consent sends access_denied back to the client', async () => {
  const { query } = authorizeRequest(latchkey.seeded.apps[0].client_id)
  const { location } = await latchkey.consent({ query, screenName: 'alice', decision: 'deny' })
  expect(new URL(location).searchParams.get('error')).toBe('access_denied')
  expect(new URL(location).searchParams.get('state')).toBe(query.state)
})

test('an allowed consent gives a token that /2/users/me accepts', async () => {
  const clientId = latchkey.seeded.apps[0].client_id
  const { query, verifier } = authorizeRequest(clientId)
  const { location } = await latchkey.consent({ query, screenName: 'alice', decision: 'allow' })
  const tokens = await exchange(latchkey.url, clientId, location, verifier)
  expect((await me(latchkey.url, tokens.access_token)).body.data.username).toBe('alice')
})
