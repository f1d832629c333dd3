// The original request of a forward-auth call, read from the headers nginx, Caddy and Traefik send.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { forwardedRequestInput } from '../../src/http/forward-auth-input.ts'
import { ServiceError } from '../../src/errors/service-error.ts'

const call = { method: 'GET', scheme: 'http', host: 'latchkey.internal:8080' }

const refusal = (headers: Record<string, string>) => {
  try {
    forwardedRequestInput(headers, call)
  } catch (error) {
    assert.ok(error instanceof ServiceError)
    return { status: error.status, code: error.code, message: error.message }
  }
  assert.fail('not refused')
}

describe('forwardedRequestInput', () => {
  test("nginx's names: method, path and query, host and scheme of the client's request", () => {
    const input = forwardedRequestInput(
      { 'x-original-method': 'post', 'x-original-uri': '/1/things%20here?b=2&a=1', 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'HTTPS', authorization: 'OAuth x', 'content-type': 'text/plain' },
      call,
    )
    assert.deepEqual(input, { method: 'POST', scheme: 'https', host: 'api.example.com', path: '/1/things%20here', query: 'b=2&a=1', authorization: 'OAuth x', contentType: 'text/plain', body: undefined, isSecure: true })
  })

  test("Caddy's and Traefik's names: X-Forwarded-Method and X-Forwarded-Uri", () => {
    const input = forwardedRequestInput({ 'x-forwarded-method': 'DELETE', 'x-forwarded-uri': '/items/7', 'x-forwarded-host': 'api.example.com:8443', 'x-forwarded-proto': 'https' }, call)
    assert.deepEqual([input.method, input.path, input.query, input.host, input.scheme], ['DELETE', '/items/7', '', 'api.example.com:8443', 'https'])
  })

  test("without the optional headers: the call's own method, X-Original-Host, then Host, and the listener's scheme", () => {
    const bare = forwardedRequestInput({ 'x-original-uri': '/' }, { ...call, method: 'PUT' })
    assert.deepEqual([bare.method, bare.host, bare.scheme, bare.isSecure], ['PUT', 'latchkey.internal:8080', 'http', false])
    assert.equal(forwardedRequestInput({ 'x-original-uri': '/', 'x-original-host': 'api.example.com' }, call).host, 'api.example.com')
    assert.equal(forwardedRequestInput({ 'x-original-uri': '/', 'x-original-host': 'a.example', 'x-forwarded-host': 'b.example' }, call).host, 'b.example')
  })

  test("a list of hosts or schemes gives the last entry: the one the nearest proxy wrote", () => {
    const input = forwardedRequestInput({ 'x-original-uri': '/', 'x-forwarded-host': 'forged.example, api.example.com', 'x-forwarded-proto': 'http,https' }, call)
    assert.deepEqual([input.host, input.scheme], ['api.example.com', 'https'])
  })

  test('both families present and equal is fine; disagreeing, the call is refused (the client wrote one of them)', () => {
    assert.equal(forwardedRequestInput({ 'x-original-uri': '/a', 'x-forwarded-uri': '/a' }, call).path, '/a')
    assert.deepEqual(refusal({ 'x-original-uri': '/a', 'x-forwarded-uri': '/b' }), {
      status: 400,
      code: 1000,
      message: 'Forward auth: x-original-uri and x-forwarded-uri disagree: the proxy must set both or remove the one it does not set.',
    })
    assert.equal(refusal({ 'x-original-uri': '/a', 'x-original-method': 'GET', 'x-forwarded-method': 'POST' }).code, 1000)
  })

  test('no original URI, or one that is not a path: 400 code 1000 saying what the proxy must send', () => {
    assert.deepEqual(refusal({ 'x-forwarded-host': 'api.example.com' }), { status: 400, code: 1000, message: 'Forward auth: the proxy sent neither X-Original-URI nor X-Forwarded-Uri.' })
    assert.equal(refusal({ 'x-original-uri': 'https://api.example.com/' }).code, 1000)
    assert.throws(() => forwardedRequestInput({ 'x-original-uri': '/' }, { ...call, host: undefined }), /no host/)
  })

  test('the body never travels: none is read, whatever the content type', () => {
    assert.equal(forwardedRequestInput({ 'x-original-uri': '/', 'content-type': 'application/x-www-form-urlencoded' }, call).body, undefined)
  })
})
