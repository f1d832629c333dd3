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

describe('checkServeRules: state shared by several processes', () => {
  const production = { trustProxy: '127.0.0.1' }
  const postgres = 'postgres://postgres@127.0.0.1:5432/test'

  test('refuses more than one worker without Redis', () => {
    assertRefused({ ...production, workers: 2 }, /workers.*--redis/)
  })

  test('refuses more than one worker without Redis even with --single-instance', () => {
    assertRefused({ ...production, workers: 4, singleInstance: true }, /workers.*--redis/)
  })

  test('allows more than one worker with Redis', () => {
    assert.doesNotThrow(() => checkServeRules(config({ ...production, workers: 4, redis: 'redis://127.0.0.1:6379' })))
  })

  test('refuses PostgreSQL without Redis', () => {
    for (const database of [postgres, 'postgresql://db.example/latchkey']) {
      assertRefused({ ...production, database }, /--redis.*--single-instance/)
    }
  })

  test('allows PostgreSQL without Redis when --single-instance says this is the only process', () => {
    assert.doesNotThrow(() => checkServeRules(config({ ...production, database: postgres, singleInstance: true })))
    assert.doesNotThrow(() => checkServeRules(loadConfig({ env: { LATCHKEY_SINGLE_INSTANCE: 'true', LATCHKEY_DATABASE_URL: postgres }, flags: production })))
  })

  test('allows PostgreSQL with Redis', () => {
    assert.doesNotThrow(() => checkServeRules(config({ ...production, database: postgres, redis: 'redis://127.0.0.1:6379' })))
  })

  test('allows one worker on SQLite without Redis (the embedded default)', () => {
    assert.doesNotThrow(() => checkServeRules(config({ ...production, workers: 1 })))
    assert.doesNotThrow(() => checkServeRules(config({ dev: true })))
  })
})

describe('settings of shared state', () => {
  test('workers must be a positive whole number', () => {
    for (const workers of ['0', '-1', 'two', '1.5']) {
      assert.throws(() => loadConfig({ env: { LATCHKEY_WORKERS: workers } }), ConfigError, workers)
    }
    assert.equal(loadConfig({ env: { LATCHKEY_WORKERS: '3' } }).workers, 3)
  })

  test('redis must be a redis:// URL', () => {
    assert.throws(() => loadConfig({ env: { LATCHKEY_REDIS_URL: 'http://127.0.0.1:6379' } }), /redis/)
    assert.equal(loadConfig({ env: { LATCHKEY_REDIS_URL: 'redis://127.0.0.1:6379' } }).redis, 'redis://127.0.0.1:6379')
  })

  test('the Redis key prefix defaults to latchkey:', () => {
    assert.equal(loadConfig({ env: {} }).redisKeyPrefix, 'latchkey:')
  })
})

describe('checkServeRules: the admin listener', () => {
  const production = { tlsCert: '/c.pem', tlsKey: '/k.pem' }

  test('refuses an admin API off loopback without TLS, in one line naming the setting', () => {
    assertRefused({ trustProxy: '10.0.0.1', adminPort: 9000, adminHost: '0.0.0.0' }, /adminHost .*TLS/)
    assertRefused({ dev: true, adminHost: '192.0.2.10' }, /adminHost/)
  })

  test('allows it on loopback without TLS, and off loopback with TLS', () => {
    assert.doesNotThrow(() => checkServeRules(config({ trustProxy: '10.0.0.1', adminPort: 9000 })))
    assert.doesNotThrow(() => checkServeRules(config({ ...production, adminPort: 9000, adminHost: '0.0.0.0' })))
  })

  test('production has no admin listener unless a port is given; development opens 8081', () => {
    assert.equal(config({}).adminPort, undefined)
    assert.equal(config({ dev: true }).adminPort, 8081)
    assert.equal(config({ dev: true }).adminHost, '127.0.0.1')
  })

  test('the test mode: loopback only, plain HTTP, the embedded database, one process, and its flags only with it', () => {
    const base = { test: true }
    assert.doesNotThrow(() => checkServeRules(config(base)))
    assert.equal(config(base).port, 0)
    assert.equal(config(base).adminPort, 0)
    assert.equal(config(base).database, ':memory:')
    assertRefused({ ...base, host: '0.0.0.0' }, /^invalid setting host \(0\.0\.0\.0\): the test mode \(--test\) listens on a loopback address only$/)
    assertRefused({ ...base, adminHost: '192.0.2.10' }, /adminHost/)
    assertRefused({ ...base, tlsCert: 'c.pem', tlsKey: 'k.pem' }, /without TLS/)
    assertRefused({ ...base, database: 'postgres://localhost/test' }, /not PostgreSQL/)
    assertRefused({ ...base, redis: 'redis://127.0.0.1:6379' }, /not in Redis/)
    assertRefused({ ...base, redis: 'redis://127.0.0.1:6379', workers: 2 }, /not in Redis|one process/)
    assertRefused({ ...base, trustProxy: '127.0.0.1' }, /proxy/)
    assertRefused({ ...base, publicUrl: 'https://auth.example.com' }, /publicUrl/)
    assertRefused({ ...base, dev: true }, /give --test or --dev, not both/)
    assertRefused({ seed: 'seed.json', trustProxy: '127.0.0.1' }, /^invalid setting seed: it belongs to the test mode \(--test\) only$/)
    assertRefused({ dev: true, autoConsent: 'alice' }, /autoConsent: it belongs to the test mode/)
  })
})
