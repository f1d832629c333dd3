import assert from 'node:assert/strict'
import { test } from 'node:test'
import { callbackOrigin } from '../../src/domain/audit.ts'

// The audit trail keeps a callback's origin only: its path and query may carry the app's state.
test('callbackOrigin keeps oob, else only the scheme, host and port; an unparsable value is named so', () => {
  assert.equal(callbackOrigin('oob'), 'oob')
  assert.equal(callbackOrigin('https://client.example:8443/cb?state=secret#frag'), 'https://client.example:8443')
  assert.equal(callbackOrigin('myapp://done/path?state=secret'), 'myapp://done')
  assert.equal(callbackOrigin('not a url'), 'unparsable')
})
