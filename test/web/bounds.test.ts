import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { jsonOf, raw } from '../helpers/raw-http.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'

describe('every input has a bound; past it a 4xx with the JSON error body', () => {
  let server: TestServer
  const logLines: string[] = []
  before(async () => {
    server = await startTestServer({ logLines })
  })
  after(() => server.close())

  test('headers over 16 KiB: 431 code 1005 and the connection closed', async () => {
    const answer = await raw(server.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, { waitForClose: true })
    assert.match(answer, /^HTTP\/1.1 431 Request Header Fields Too Large\r\n/)
    assert.match(answer, /\r\nContent-Type: application\/json; charset=utf-8\r\n/)
    assert.deepEqual(jsonOf(answer), { errors: [{ code: 1005, message: 'Request headers too large.' }] })
  })

  test('a URL over 4096 characters: 414 code 1006', async () => {
    const answer = await fetch(`${server.url}/oauth/request_token?x=${'a'.repeat(5000)}`, { method: 'POST' })
    assert.equal(answer.status, 414)
    assert.deepEqual(await answer.json(), { errors: [{ code: 1006, message: 'Request URL too long.' }] })
  })

  test('a body over 64 KiB: 413 code 1002', async () => {
    const answer = await fetch(`${server.url}/oauth/request_token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `a=${'b'.repeat(70_000)}` })
    assert.equal(answer.status, 413)
    assert.equal((await answer.json()).errors[0].code, 1002)
  })

  test('something that is not HTTP: 400 code 1000', async () => {
    const answer = await raw(server.url, 'HELLO THERE\r\n\r\n', { waitForClose: true })
    assert.match(answer, /^HTTP\/1.1 400 Bad Request\r\n/)
    assert.equal(jsonOf(answer).errors[0].code, 1000)
  })

  test('too many parameters: 400 code 215', async () => {
    const body = Array.from({ length: 300 }, (_, i) => `p${i}=v`).join('&')
    const answer = await fetch(`${server.url}/oauth/request_token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'OAuth oauth_consumer_key="x"' }, body })
    assert.equal(answer.status, 400)
    assert.equal((await answer.json()).errors[0].code, 215)
  })

  test('headers that never finish: the connection is answered 408 and closed within seconds', async () => {
    const answer = await raw(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', { waitForClose: true })
    assert.match(answer, /^HTTP\/1.1 408 Request Timeout\r\n/)
    assert.equal(jsonOf(answer).errors[0].code, 1007)
  })

  test('every request Node refuses before routing gets the JSON error body, a Date header and a closed connection', async () => {
    const refused = {
      'no Host header': 'GET /healthz HTTP/1.1\r\n\r\n',
      'two Host headers': 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
      'a bad request line': 'GET /healthz HTTP/9.Z\r\nHost: x\r\n\r\n',
      'a header without a colon': 'GET /healthz HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n',
      'a space before the colon': 'GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n',
      'two different Content-Lengths': 'POST /oauth/request_token HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      'Transfer-Encoding with Content-Length': 'POST /oauth/request_token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
    }
    for (const [what, bytes] of Object.entries(refused)) {
      const answer = await raw(server.url, bytes, { waitForClose: true })
      assert.match(answer, /^HTTP\/1.1 400 /, what)
      assert.match(answer, /\r\ndate: .+ GMT\r\n/i, what)
      assert.match(answer, /\r\nconnection: close\r\n/i, what)
      assert.equal(jsonOf(answer).errors[0].code, 1000, what)
    }
    // The same request with its one Host header is served.
    assert.match(await raw(server.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { waitForClose: true }), /^HTTP\/1.1 200 /)
    // HTTP/1.0 had no Host header: still served.
    assert.match(await raw(server.url, 'GET /healthz HTTP/1.0\r\n\r\n', { waitForClose: true }), /^HTTP\/1.1 200 /)
  })

  test('a Host header is counted by its name alone: other four-letter headers are not Hosts; HTTP/1.0 may have one, not two', async () => {
    const served = await raw(server.url, 'GET /healthz HTTP/1.1\r\nDate: Sat, 28 Nov 2026 10:00:00 GMT\r\nFrom: ops@example.org\r\nHOST: x\r\nConnection: close\r\n\r\n', { waitForClose: true })
    assert.match(served, /^HTTP\/1.1 200 /)
    assert.match(await raw(server.url, 'GET /healthz HTTP/1.0\r\nHost: x\r\n\r\n', { waitForClose: true }), /^HTTP\/1.1 200 /)
    const twice = await raw(server.url, 'GET /healthz HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n', { waitForClose: true })
    assert.match(twice, /^HTTP\/1.1 400 /)
    assert.equal(jsonOf(twice).errors[0].code, 1000)
  })

  test('the log says which Host rule a refusal broke', async () => {
    logLines.length = 0
    await raw(server.url, 'GET /healthz HTTP/1.1\r\n\r\n', { waitForClose: true })
    await raw(server.url, 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', { waitForClose: true })
    const details = logLines.map((line) => JSON.parse(line) as { msg: string; detail?: string }).filter((entry) => entry.msg === 'request refused').map((entry) => entry.detail)
    assert.deepEqual(details, ['no Host header', 'more than one Host header'])
  })
})
