import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { CLI_ARGS, REPO_ROOT, cliEnv } from '../../helpers/cli.ts'
import { eventually } from '../../helpers/eventually.ts'
import { listeningUrl, startServe } from '../../helpers/serve-process.ts'

/**
 * A production server (behind what it takes for a TLS proxy) whose log output stops being read: a
 * pipe nobody drains, as a stalled log shipper would leave it.
 */
describe('a log output that stalls', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-log-'))
  let child: ChildProcess
  let url: string
  let output = ''

  before(async () => {
    const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--database', join(dir, 'latchkey.sqlite')]
    args.push('--log-buffer', String(64 * 1024), '--stats-interval', '1')
    child = spawn(process.execPath, [...CLI_ARGS, ...args], { cwd: REPO_ROOT, env: cliEnv({}) })
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.stdout!.setEncoding('utf8')
    url = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: string) => {
        output += chunk
        const listening = output.split('\n').slice(0, -1).map(listeningUrl).find(Boolean)
        if (!listening) return
        // From here on nobody reads the pipe: the server's writes to it block once it is full.
        child.stdout!.off('data', onData)
        child.stdout!.pause()
        resolve(listening)
      }
      child.stdout!.on('data', onData)
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)))
    })
  })

  after(async () => {
    if (child.exitCode === null) {
      child.stdout!.resume()
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
    rmSync(dir, { recursive: true, force: true })
  })

  test('lines beyond --log-buffer are dropped and counted, the service keeps answering, and a line says how many', async () => {
    const headers = { 'x-forwarded-proto': 'https' }
    const statuses = new Map<number, number>()
    // About 200 bytes of log a request: 4,000 requests are some 800 kB, over ten times the buffer.
    const worker = async () => {
      for (let i = 0; i < 200; i++) {
        const { status } = await fetch(`${url}/healthz`, { headers })
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }
    await Promise.all(Array.from({ length: 20 }, worker))
    assert.deepEqual([...statuses], [[200, 4000]], 'every request answered while the log is stalled')

    let text = ''
    child.stdout!.on('data', (chunk: string) => (text += chunk))
    child.stdout!.resume()
    // Each report gives the total so far (one written during the stall may say less than the last).
    const reported = () => Math.max(0, ...[...text.matchAll(/"droppedLogLines":(\d+)/g)].map((match) => Number(match[1])))
    for (let waited = 0; reported() < 2000 && waited < 30_000; waited += 100) await sleep(100)
    assert.ok(reported() >= 2000, `most lines were dropped, and a line says how many (${reported()}): ${text.slice(-500)}`)
    assert.match(text, /"msg":"process stats"/)
    const stats = JSON.parse(text.split('\n').find((line) => line.includes('"process stats"'))!).stats
    for (const field of ['rssBytes', 'heapUsedBytes', 'eventLoopDelayP99Ms', 'nonceEntries']) assert.equal(typeof stats[field], 'number', field)
  })
})

describe('a production server with little traffic', { timeout: 60_000 }, () => {
  test("a request's access line reaches the output while the server runs, not held back for a batch of lines", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-log-'))
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--database', join(dir, 'latchkey.sqlite')])
    try {
      const answer = await fetch(`${server.url}/healthz?probe=1`, { headers: { 'x-forwarded-proto': 'https' } })
      assert.equal(answer.status, 200)
      const line = await eventually(async () => {
        const found = server.output().split('\n').find((text) => text.includes('"path":"/healthz"'))
        assert.ok(found, `no access line yet: ${server.output().slice(-500)}`)
        return JSON.parse(found) as { status: number; msg: string }
      }, 5_000)
      assert.equal(line.status, 200)
      assert.equal(line.msg, 'request')
      assert.equal(server.child.exitCode, null, 'written while the server still runs, not only at its exit')
    } finally {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
