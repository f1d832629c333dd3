// Issue 49, item 3: `latchkey webhook`, the revocation push's endpoints from the command line.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import { runCli, type CliResult } from '../helpers/cli.ts'
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-webhook-cli-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const json = async (args: string[], env: Record<string, string>): Promise<Record<string, unknown>> => {
  const result = await runCli([...args, '--json'], env)
  assert.equal(result.code, 0, `latchkey ${args.join(' ')} failed: ${result.stderr}`)
  return JSON.parse(result.stdout) as Record<string, unknown>
}

const refusal = (result: CliResult, message: RegExp) => {
  assert.notEqual(result.code, 0)
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr)
  assert.match(result.stderr, message)
}

describe('latchkey webhook', { timeout: 60_000 }, () => {
  test('add shows the secret once and keeps it sealed; verify runs the CRC challenge; status shows what waits; replay and remove', async () => {
    const path = join(dir, 'hooks.sqlite')
    const env = { LATCHKEY_DATABASE_URL: path }
    const receiver = await startWebhookReceiver()
    try {
      const user = await json(['user', 'create', '--screen-name', 'hooker', '--password', 'correct horse battery'], env)
      const app = await json(['app', 'create', '--name', 'Hooked', '--owner', String(user.user_id), '--callback', 'https://app.example/cb'], env)
      const added = await json(['webhook', 'add', receiver.url, '--app', String(app.app_id)], env)
      const secret = String(added.secret)
      assert.match(secret, /^whsec_/)
      assert.deepEqual([added.url, added.app_id, added.verified], [receiver.url, app.app_id, false])
      const text = await runCli(['webhook', 'list'], env)
      assert.match(text.stdout, /not verified: run `latchkey webhook verify`/)
      assert.ok(!text.stdout.includes(secret), 'never shown again')
      const stored = new Sqlite(path, { readonly: true })
      const row = stored.prepare('select secret from webhook_endpoints').get() as { secret: string }
      stored.close()
      assert.ok(row.secret.startsWith('v1.') && !row.secret.includes(secret), 'sealed at rest')

      const id = String(added.id)
      receiver.secret = 'not the one Latchkey showed'
      refusal(await runCli(['webhook', 'verify', id], env), /failed the CRC challenge: its response_token is not/)
      receiver.secret = secret
      const verified = await json(['webhook', 'verify', id], env)
      assert.equal(verified.verified, true)

      await json(['app', 'update', String(app.app_id), '--suspended'], env)
      // No server runs here: the event waits in the outbox until a serve process sends it.
      const status = await json(['webhook', 'status', id], env)
      assert.deepEqual([status.id, status.pending, status.failed, status.last_error], [id, 1, 0, null])
      refusal(await runCli(['webhook', 'replay', id], env), /give --failed, or --since/)
      assert.deepEqual(await json(['webhook', 'replay', id, '--failed'], env), { id, queued: 0 })
      refusal(await runCli(['webhook', 'remove', '12345'], env), /no webhook with id 12345/)
      assert.deepEqual(await json(['webhook', 'remove', id], env), { id, removed: true })
      assert.deepEqual(await json(['webhook', 'list'], env), [])
    } finally {
      await receiver.close()
    }
  })
})
