import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { bodyParams, formParams, param } from '../../src/domain/request.ts'

// Where the OAuth 2 use cases read their parameters from (client_id, client_secret, token,
// grant_type): a form body only, never a body of another type.

describe('the parameters of a request (domain)', () => {
  test('a form body’s parameters are read; a body of another type gives none, even when it looks like a form', () => {
    assert.deepEqual(bodyParams({ contentType: 'application/x-www-form-urlencoded', body: 'token=abc&x=1' }), [
      ['token', 'abc'],
      ['x', '1'],
    ])
    assert.deepEqual(bodyParams({ contentType: 'application/json', body: 'token=abc' }), [])
    assert.deepEqual(bodyParams({ contentType: undefined, body: 'token=abc' }), [])
    assert.deepEqual(bodyParams({ contentType: 'application/x-www-form-urlencoded', body: undefined }), [])
    assert.deepEqual(formParams({ query: 'a=1', contentType: 'text/plain', body: 'b=2' }), [['a', '1']])
  })

  test('param answers the first value of the parameter named, or undefined', () => {
    const pairs: Array<[string, string]> = [
      ['grant_type', 'client_credentials'],
      ['token', 'first'],
      ['token', 'second'],
    ]
    assert.equal(param(pairs, 'token'), 'first')
    assert.equal(param(pairs, 'grant_type'), 'client_credentials')
    assert.equal(param(pairs, 'client_id'), undefined)
  })
})
