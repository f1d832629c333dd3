import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { runCli } from '../../helpers/cli.ts'
import { startServe, type ServeProcess } from '../../helpers/serve-process.ts'

// Two servers on one SQLite file, each with its nonces in its own memory, would accept each
// other's replays: the second must refuse to start.
describe('one server per SQLite file (nonces in memory)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-lock-'))
  const env = { LATCHKEY_DATABASE_URL: join(dir, 'shared.sqlite') }
  const servers: ServeProcess[] = []
  after(async () => {
    for (const server of servers) server.child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  test('a second server refuses to start with a one-line reason; the CLI works beside the first; a killed server leaves no lock', async () => {
    const first = await startServe(['--dev', '--port', '0'], env)
    servers.push(first)
    assert.equal((await fetch(`${first.url}/healthz`)).status, 200)

    const second = await startServe(['--dev', '--port', '0'], env, 30_000).catch((error: Error) => error)
    assert.ok(second instanceof Error, 'the second server must not listen')
    assert.match(second.message, /exited with 1/)
    assert.match(second.message, /latchkey: another latchkey server is running on .*shared\.sqlite: one server per SQLite file \(for several instances use PostgreSQL and Redis/)

    const created = await runCli(['user', 'create', '--screen-name', 'beside_server', '--password', 'a long password', '--json'], env)
    assert.equal(created.code, 0, created.stderr)
    assert.equal(JSON.parse(created.stdout).screen_name, 'beside_server')

    first.child.kill('SIGKILL')
    await new Promise((resolve) => first.child.once('exit', resolve))
    const third = await startServe(['--dev', '--port', '0'], env)
    servers.push(third)
    assert.equal((await fetch(`${third.url}/healthz`)).status, 200)
    assert.equal(await third.stop(), 0)
  })

  test('a server in another folder, on another file, starts beside it', async () => {
    const one = await startServe(['--dev', '--port', '0'], { LATCHKEY_DATABASE_URL: join(dir, 'a.sqlite') })
    servers.push(one)
    const two = await startServe(['--dev', '--port', '0'], { LATCHKEY_DATABASE_URL: join(dir, 'b.sqlite') })
    servers.push(two)
    assert.deepEqual([(await fetch(`${one.url}/healthz`)).status, (await fetch(`${two.url}/healthz`)).status], [200, 200])
    assert.deepEqual([await one.stop(), await two.stop()], [0, 0])
  })
})
