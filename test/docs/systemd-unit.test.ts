import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'node:test'
import { loadConfig } from '../../src/config/load.ts'
import { SETTINGS } from '../../src/config/settings.ts'

const UNIT = fileURLToPath(new URL('../../examples/latchkey.service', import.meta.url))
const text = readFileSync(UNIT, 'utf8')
const environment = Object.fromEntries([...text.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]))
const hasSystemd = spawnSync('systemd-analyze', ['--version']).status === 0

describe('examples/latchkey.service (docs/deployment.md)', () => {
  test('systemd accepts it', { skip: hasSystemd ? false : 'systemd-analyze is not installed' }, () => {
    const run = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' })
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stderr.trim(), '')
  })

  test('every setting it gives is one of Latchkey\'s, and together they make the production server the recipe describes', () => {
    const known = new Set(Object.values(SETTINGS).map((s) => s.env))
    assert.ok(Object.keys(environment).length >= 5)
    for (const name of Object.keys(environment)) assert.ok(known.has(name), `${name} is not a setting`)
    const config = loadConfig({ env: environment })
    assert.equal(config.dev, false)
    assert.equal(config.host, '127.0.0.1')
    assert.equal(config.adminHost, '127.0.0.1', 'the admin API stays on loopback')
    assert.equal(config.trustProxy, '127.0.0.1')
    assert.equal(config.database, '/var/lib/latchkey/latchkey.sqlite')
    assert.equal(config.masterKeyFile, '/etc/latchkey/master-key.json')
    assert.match(text, /^ExecStart=\/usr\/bin\/node \/opt\/latchkey\/bin\/latchkey\.js serve$/m)
    assert.match(text, /^ReadWritePaths=\/var\/lib\/latchkey$/m, 'the database folder is the one it may write')
  })
})
