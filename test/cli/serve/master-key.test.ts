import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { parseKeyring } from '../../../src/storage/sealing/keyring.ts'
import { runCli } from '../../helpers/cli.ts'
import { startServe } from '../../helpers/serve-process.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-master-key-'))
after(() => rmSync(dir, { recursive: true, force: true }))

// Issue 6: the development server makes and keeps its own key file and says so; production refuses
// to start without a key.
describe('the master key at start-up', () => {
  test('the development server makes a key file on first start, outside the data folder, says so, and keeps it', async () => {
    const keyFile = join(dir, 'keys', 'master-key.json')
    const env = { LATCHKEY_MASTER_KEY: '', LATCHKEY_MASTER_KEY_FILE: keyFile, LATCHKEY_DATABASE_URL: join(dir, 'data', 'dev.sqlite') }
    const first = await startServe(['--dev', '--port', '0'], env)
    try {
      assert.match(first.output(), new RegExp(`Made a new master key file at ${keyFile.replaceAll('/', '\\/')}`))
    } finally {
      assert.equal(await first.stop(), 0)
    }
    const keyring = parseKeyring(readFileSync(keyFile, 'utf8'))
    assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'readable by its owner only')
    const second = await startServe(['--dev', '--port', '0'], env)
    try {
      assert.doesNotMatch(second.output(), /Made a new master key/, 'the second start keeps the key')
      const health = await fetch(`${second.url}/healthz`)
      assert.equal(health.status, 200)
    } finally {
      await second.stop()
    }
    assert.equal(parseKeyring(readFileSync(keyFile, 'utf8')).activeKeyId, keyring.activeKeyId)
  })

  test('by default the key file is ./.latchkey/master-key.json, outside ./data', async () => {
    const { SETTINGS } = await import('../../../src/config/settings.ts')
    assert.equal(SETTINGS.masterKeyFile.default, './.latchkey/master-key.json')
    assert.equal(String(SETTINGS.database.default).startsWith('./data/'), true)
  })

  test('production refuses to start without a key, in one line, and makes none, nor a data folder', async () => {
    const keyFile = join(dir, 'absent', 'master-key.json')
    const dataFolder = join(dir, 'refused-start', 'data')
    const result = await runCli(
      ['serve', '--port', '0', '--trust-proxy', '127.0.0.1'],
      { LATCHKEY_MASTER_KEY: '', LATCHKEY_MASTER_KEY_FILE: keyFile, LATCHKEY_DATABASE_URL: join(dataFolder, 'prod.sqlite') },
    )
    assert.equal(existsSync(join(dir, 'refused-start')), false, 'a refused start leaves no folder behind')
    assert.equal(result.code, 1)
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
    assert.match(result.stderr, /no master key/)
    assert.equal(existsSync(keyFile), false)
  })

  test('a CLI command without a key stops in one line too', async () => {
    const result = await runCli(['user', 'list'], { LATCHKEY_MASTER_KEY: '', LATCHKEY_MASTER_KEY_FILE: join(dir, 'none.json'), LATCHKEY_DATABASE_URL: join(dir, 'cli.sqlite') })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /^latchkey: .*no master key/)
  })
})
