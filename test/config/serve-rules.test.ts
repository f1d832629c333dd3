import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/load.ts'
import { checkServeRules, isLoopbackHost } from '../../src/config/serve-rules.ts'

const config = (flags: Record<string, unknown>) => loadConfig({ env: {}, flags })

function assertRefused(flags: Record<string, unknown>, mentions: RegExp): void {
  assert.throws(() => checkServeRules(config(flags)), (error: unknown) => {
    assert.ok(error instanceof ConfigError)
    assert.doesNotMatch(error.message, /\n/)
    assert.match(error.message, mentions)
    return true
  })
}

describe('checkServeRules', () => {
  test('refuses development mode on 0.0.0.0', () => {
    assertRefused({ dev: true, host: '0.0.0.0' }, /host/)
  })

  test('refuses development mode on a public address', () => {
    assertRefused({ dev: true, host: '192.0.2.10' }, /host/)
  })

  test('allows development mode on loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1']) {
      assert.doesNotThrow(() => checkServeRules(config({ dev: true, host })), host)
    }
  })

  test('refuses production mode without TLS or a trusted proxy', () => {
    assertRefused({}, /HTTPS/)
  })

  test('allows production mode behind a trusted proxy', () => {
    assert.doesNotThrow(() => checkServeRules(config({ trustProxy: '10.0.0.0/8' })))
  })

  test('allows production mode with its own certificate and key', () => {
    assert.doesNotThrow(() => checkServeRules(config({ tlsCert: 'cert.pem', tlsKey: 'key.pem' })))
  })

  test('refuses a TLS certificate without a key', () => {
    assertRefused({ tlsCert: 'cert.pem' }, /tls/i)
  })

  test('refuses a TLS key without a certificate', () => {
    assertRefused({ tlsKey: 'key.pem', trustProxy: '127.0.0.1' }, /tls/i)
  })
})

describe('isLoopbackHost', () => {
  test('is false for addresses that only look local', () => {
    for (const host of ['0.0.0.0', '127.example.com', '::', '10.0.0.1']) assert.equal(isLoopbackHost(host), false, host)
  })
})
