import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isUserTokenValue, newUserTokenValue } from '../../../src/domain/oauth2-user/token-values.ts'
import { canonicalBearerToken } from '../../../src/protocol/oauth2/bearer-token.ts'
import { newBearerTokenValue } from '../../../src/protocol/secrets.ts'

test("a user token and an app-only bearer token never look alike, so each is looked up in its own table only", () => {
  for (let i = 0; i < 200; i++) {
    assert.equal(isUserTokenValue(newUserTokenValue()), true)
    const appOnly = newBearerTokenValue()
    assert.equal(isUserTokenValue(appOnly), false, appOnly)
    assert.equal(isUserTokenValue(decodeURIComponent(appOnly)), false, 'decoded by a client, it holds = and may hold + or /')
    assert.equal(isUserTokenValue(canonicalBearerToken(appOnly)), false)
  }
  assert.equal(isUserTokenValue(`${newUserTokenValue()}x`), false)
  assert.equal(isUserTokenValue(newUserTokenValue().slice(1)), false)
})
