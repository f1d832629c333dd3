import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { loadConfig } from '../../src/config/load.ts'
import { startTestServer } from '../helpers/test-app.ts'

const hstsOf = (hsts: string) => loadConfig({ env: {}, flags: { hsts } }).hsts

describe('Strict-Transport-Security (RFC 6797)', () => {
  test('in production, every answer over HTTPS (here: a trusted proxy that said https) carries it; plain HTTP never does', async () => {
    const server = await startTestServer({ http: { dev: false, trustProxy: ['127.0.0.1'], hsts: hstsOf('on') } })
    try {
      const overHttps = await fetch(`${server.url}/healthz`, { headers: { 'x-forwarded-proto': 'https' } })
      assert.equal(overHttps.headers.get('strict-transport-security'), 'max-age=31536000')
      const refusal = await fetch(`${server.url}/oauth/request_token`, { method: 'POST', headers: { 'x-forwarded-proto': 'https' } })
      assert.equal(refusal.status, 400, 'no OAuth parameters: 400 code 215')
      assert.equal(refusal.headers.get('strict-transport-security'), 'max-age=31536000', 'errors too')
      const overHttp = await fetch(`${server.url}/healthz`)
      assert.equal(overHttp.status, 200)
      assert.equal(overHttp.headers.get('strict-transport-security'), null)
    } finally {
      await server.close()
    }
  })

  test('never in development, even when a proxy says https', async () => {
    const server = await startTestServer({ http: { dev: true, trustProxy: ['127.0.0.1'], hsts: hstsOf('on') } })
    try {
      const answer = await fetch(`${server.url}/healthz`, { headers: { 'x-forwarded-proto': 'https' } })
      assert.equal(answer.status, 200)
      assert.equal(answer.headers.get('strict-transport-security'), null)
    } finally {
      await server.close()
    }
  })

  test('--hsts: on by default, off, and its options', () => {
    assert.equal(loadConfig({ env: {}, flags: {} }).hsts, 'max-age=31536000')
    assert.equal(hstsOf('off'), undefined)
    assert.equal(hstsOf('includeSubDomains,preload'), 'max-age=31536000; includeSubDomains; preload')
    assert.equal(hstsOf('max-age=63072000, includeSubDomains'), 'max-age=63072000; includeSubDomains')
    assert.throws(() => hstsOf('max-age=forever'), /hsts/)
    assert.throws(() => hstsOf('yes please'), /hsts/)
  })
})
