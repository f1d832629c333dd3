import assert from 'node:assert/strict'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { ConfigError, loadConfig } from '../../src/config/load.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-config-'))
after(() => rmSync(dir, { recursive: true, force: true }))

function configFile(name: string, content: string): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

/** Asserts that loading fails with a ConfigError whose message is one line containing every `names`. */
function assertRefused(load: () => unknown, ...names: string[]): void {
  assert.throws(load, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`)
    assert.doesNotMatch(error.message, /\n/, 'the message is one line')
    for (const name of names) assert.ok(error.message.includes(name), `"${error.message}" names ${name}`)
    return true
  })
}

describe('loadConfig precedence', () => {
  const file = configFile('port.json', JSON.stringify({ port: 1111, logLevel: 'warn' }))

  test('uses the default when nothing sets a value', () => {
    assert.equal(loadConfig({ env: {} }).port, 8443)
  })

  test('a config file beats the default', () => {
    assert.equal(loadConfig({ env: {}, file }).port, 1111)
  })

  test('the config file can be named by LATCHKEY_CONFIG', () => {
    assert.equal(loadConfig({ env: { LATCHKEY_CONFIG: file } }).port, 1111)
  })

  test('the environment beats the config file', () => {
    const config = loadConfig({ env: { LATCHKEY_PORT: '2222' }, file })
    assert.equal(config.port, 2222)
    assert.equal(config.logLevel, 'warn', 'settings the environment does not name still come from the file')
  })

  test('a command-line flag beats the environment', () => {
    assert.equal(loadConfig({ env: { LATCHKEY_PORT: '2222' }, file, flags: { port: '3333' } }).port, 3333)
  })

  test('an empty environment variable counts as unset', () => {
    assert.equal(loadConfig({ env: { LATCHKEY_PORT: '' }, file }).port, 1111)
  })

  test('returns a frozen object', () => {
    assert.ok(Object.isFrozen(loadConfig({ env: {} })))
  })
})

describe('loadConfig development defaults', () => {
  test('listen on 127.0.0.1:8080 in development mode', () => {
    const config = loadConfig({ env: {}, flags: { dev: true } })
    assert.equal(config.dev, true)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.port, 8080)
  })

  test('LATCHKEY_DEV=1 turns development mode on as --dev does', () => {
    const config = loadConfig({ env: { LATCHKEY_DEV: '1' } })
    assert.equal(config.dev, true)
    assert.equal(config.host, '127.0.0.1')
  })

  test('listen on 0.0.0.0:8443 in production mode', () => {
    const config = loadConfig({ env: {} })
    assert.equal(config.dev, false)
    assert.equal(config.host, '0.0.0.0')
    assert.equal(config.port, 8443)
  })

  test('an explicit host wins over the development default', () => {
    assert.equal(loadConfig({ env: { LATCHKEY_HOST: '::1' }, flags: { dev: true } }).host, '::1')
  })
})

describe('loadConfig refuses a bad value with one line naming the setting', () => {
  test('LATCHKEY_PORT=abc', () => {
    assertRefused(() => loadConfig({ env: { LATCHKEY_PORT: 'abc' } }), 'port', 'LATCHKEY_PORT')
  })

  test('a port that is blank, hexadecimal, exponential or fractional', () => {
    for (const value of [' ', '0x50', '1e3', '80.5', '-1']) {
      assertRefused(() => loadConfig({ env: { LATCHKEY_PORT: value } }), 'port', 'LATCHKEY_PORT')
    }
  })

  test('a whole number of seconds is read from the environment', () => {
    assert.equal(loadConfig({ env: { LATCHKEY_REQUEST_TOKEN_TTL: '600' } }).requestTokenTtlSeconds, 600)
  })

  test('a port above 65535', () => {
    assertRefused(() => loadConfig({ env: {}, flags: { port: '70000' } }), 'port', '--port')
  })

  test('--public-url not-a-url', () => {
    assertRefused(() => loadConfig({ env: {}, flags: { publicUrl: 'not-a-url' } }), 'publicUrl', '--public-url')
  })

  test('a public URL that is not http or https', () => {
    assertRefused(() => loadConfig({ env: { LATCHKEY_PUBLIC_URL: 'ftp://example.com' } }), 'publicUrl')
  })

  test('an unknown log level', () => {
    assertRefused(() => loadConfig({ env: { LATCHKEY_LOG_LEVEL: 'loud' } }), 'logLevel', 'LATCHKEY_LOG_LEVEL')
  })

  test('a cookie secret shorter than 32 characters', () => {
    assertRefused(() => loadConfig({ env: { LATCHKEY_COOKIE_SECRET: 'short' } }), 'cookieSecret')
  })

  test('LATCHKEY_DEV=maybe', () => {
    assertRefused(() => loadConfig({ env: { LATCHKEY_DEV: 'maybe' } }), 'dev', 'LATCHKEY_DEV')
  })

  test('a bad value in the config file names the file key', () => {
    const file = configFile('bad-ttl.json', JSON.stringify({ requestTokenTtlSeconds: -5 }))
    assertRefused(() => loadConfig({ env: {}, file }), 'requestTokenTtlSeconds', 'config file')
  })

  test('an unknown config-file key', () => {
    const file = configFile('unknown.json', JSON.stringify({ port: 1, colour: 'blue' }))
    assertRefused(() => loadConfig({ env: {}, file }), 'colour', file)
  })

  test('a config file that does not exist', () => {
    const missing = join(dir, 'missing.json')
    assertRefused(() => loadConfig({ env: {}, file: missing }), missing)
  })

  test('a config file that cannot be read', { skip: process.getuid?.() === 0 ? 'root reads any file' : false }, () => {
    const file = configFile('locked.json', '{}')
    chmodSync(file, 0o000)
    assertRefused(() => loadConfig({ env: {}, file }), file)
  })

  test('a config file that is not JSON', () => {
    const file = configFile('broken.json', '{ port: 1 ')
    assertRefused(() => loadConfig({ env: {}, file }), file)
  })

  test('a config file that holds a JSON array', () => {
    const file = configFile('array.json', '[1, 2]')
    assertRefused(() => loadConfig({ env: {}, file }), file)
  })
})
