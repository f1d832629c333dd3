import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { get } from 'node:https'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, describe, test } from 'node:test'
import { CLI_ARGS, REPO_ROOT, cliEnv, runCli } from '../../helpers/cli.ts'
import { listeningUrl, startServe } from '../../helpers/serve-process.ts'

const dir = mkdtempSync(join(tmpdir(), 'latchkey-serve-'))
const running = new Set<ChildProcess>()
after(() => {
  for (const child of running) child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

interface Served {
  child: ChildProcess
  url: string
  /** stdout up to and including the "listening" line. */
  banner: string
}

/** Starts `latchkey serve ...` and resolves once it prints the URL it listens on. */
async function serve(args: string[], env: Record<string, string>): Promise<Served> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', ...args], { cwd: REPO_ROOT, env: cliEnv(env) })
  running.add(child)
  child.on('exit', () => running.delete(child))
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const lines: string[] = []
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line)
      const url = listeningUrl(line)
      if (url) resolve(url)
    })
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)))
  })
  const url = await listening
  return { child, url, banner: lines.join('\n') }
}

/** Sends SIGTERM and resolves with the exit code. */
async function stop(child: ChildProcess): Promise<number | null> {
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>
  child.kill('SIGTERM')
  const [code] = await exited
  return code
}

describe('latchkey serve --dev', () => {
  const env = { LATCHKEY_DATABASE_URL: join(dir, 'dev.sqlite') }

  test('prints the demo credentials on the first start only, answers /healthz, and exits 0 on SIGTERM', async () => {
    const first = await serve(['--dev', '--port', '0'], env)
    assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.match(first.banner, /consumer key\s+\S+/)
    assert.match(first.banner, /sign in as\s+demo \/ \S+/)

    const res = await fetch(`${first.url}/healthz`)
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), { status: 'ok' })

    assert.equal(await stop(first.child), 0)
    await assert.rejects(fetch(`${first.url}/healthz`), 'the port is closed')

    const second = await serve(['--dev', '--port', '0'], env)
    assert.doesNotMatch(second.banner, /consumer key|sign in as/)
    assert.equal((await fetch(`${second.url}/readyz`)).status, 200)
    assert.equal(await stop(second.child), 0)
  })

  test('SIGTERM lets a request in flight finish, then exits 0', async () => {
    const served = await serve(['--dev', '--port', '0'], env)
    const { port } = new URL(served.url)
    const body = 'oauth_callback=oob'
    // The headers now; the body once the server has stopped listening. "100 Continue" is the
    // server's word that it has taken the request in.
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/oauth/request_token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length), expect: '100-continue' },
    })
    const response = once(request, 'response') as Promise<[IncomingMessage]>
    request.flushHeaders()
    await once(request, 'continue')

    const exited = once(served.child, 'exit') as Promise<[number | null]>
    served.child.kill('SIGTERM')
    await untilRefused(Number(port))
    request.end(body)

    const [res] = await response
    res.resume()
    assert.ok(res.statusCode && res.statusCode >= 400 && res.statusCode < 500, `a normal answer, got ${res.statusCode}`)
    const [code] = await exited
    assert.equal(code, 0)
  })
})

describe('what serve says at start', () => {
  test('in development: one admin API line, and on a later start on another port the demo app\'s website follows it', async () => {
    const env = { LATCHKEY_DATABASE_URL: join(dir, 'ports.sqlite') }
    const first = await startServe(['--dev', '--port', '0'], env)
    const adminToken = /admin token\s+(lkadm_\S+)/.exec(first.output())![1]!
    assert.equal(await first.stop(), 0)
    const second = await startServe(['--dev', '--port', '0'], env)
    try {
      assert.notEqual(second.url, first.url)
      const banner = second.output()
      assert.deepEqual(banner.split('\n').filter((line) => /admin api/i.test(line)).map((line) => line.replace(/\d+/g, 'N')), ['Admin API is listening on http://N.N.N.N:N'])
      const adminUrl = /Admin API is listening on (\S+)/.exec(banner)![1]!
      const apps = (await (await fetch(`${adminUrl}/admin/v1/apps`, { headers: { authorization: `Bearer ${adminToken}` } })).json()) as { data: Array<{ name: string; website: string }> }
      assert.deepEqual(apps.data.map((app) => [app.name, app.website]), [['Demo app', second.url]])
    } finally {
      await second.stop()
    }
  })

  test('in production: every line on stdout is a JSON log line, and the start line names the public URL, never the listen address as the front door', async () => {
    // At --log-level warn too: the start and stop lines are written whatever the level.
    const env = { LATCHKEY_DATABASE_URL: join(dir, 'production.sqlite') }
    const made = await runCli(['admin-token', 'create', '--name', 'ops', '--json'], env)
    assert.equal(made.code, 0, made.stderr)
    const adminToken = (JSON.parse(made.stdout) as { token: string }).token
    const server = await startServe(['--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1', '--public-url', 'https://auth.example.com', '--log-level', 'warn'], env)
    const started = server.output().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
    const adminUrl = String(started.find((line) => line.msg === 'Latchkey is listening')!.adminUrl)
    // The test mode's control calls do not exist here: 404 to a live admin token.
    for (const [method, path] of [['GET', 'clock'], ['POST', 'reset'], ['POST', 'seed'], ['POST', 'faults'], ['GET', 'requests'], ['POST', 'consent/oauth2']]) {
      const answer = await fetch(`${adminUrl}/admin/v1/test/${path}`, { method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) })
      assert.equal(answer.status, 404, `${method} /admin/v1/test/${path}`)
    }
    assert.equal((await fetch(`${adminUrl}/admin/v1/apps`, { headers: { authorization: `Bearer ${adminToken}` } })).status, 200, 'the token is live')
    assert.equal(await server.stop(), 0)
    const lines = server.output().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
    const listening = lines.find((line) => line.msg === 'Latchkey is listening')!
    assert.equal(listening.url, server.url)
    assert.equal(listening.publicUrl, 'https://auth.example.com')
    assert.equal(listening.frontDoor, 'https://auth.example.com/')
    assert.equal(listening.console, 'https://auth.example.com/console')
    assert.match(String(listening.adminUrl), /^http:\/\/127\.0\.0\.1:\d+$/)
    assert.deepEqual(lines.slice(-2).map((line) => line.msg), ['SIGTERM: stopping, after the requests in flight', 'Latchkey stopped'], server.output())
  })
})

/** Resolves once a new connection to the port is refused: the server has stopped listening. */
async function untilRefused(port: number): Promise<void> {
  for (;;) {
    const socket = connect({ host: '127.0.0.1', port })
    const refused = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(false))
      socket.once('error', () => resolve(true))
    })
    socket.destroy()
    if (refused) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const hasOpenssl = !spawnSync('openssl', ['version']).error

describe('latchkey serve with its own certificate', { skip: hasOpenssl ? false : 'openssl is not installed' }, () => {
  test('serves HTTPS in production mode with the given certificate', async () => {
    const cert = join(dir, 'cert.pem')
    const key = join(dir, 'key.pem')
    const made = spawnSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert,
    ])
    assert.equal(made.status, 0, String(made.stderr))

    const served = await serve(['--tls-cert', cert, '--tls-key', key, '--host', '127.0.0.1', '--port', '0'], {
      LATCHKEY_DATABASE_URL: join(dir, 'tls.sqlite'),
    })
    assert.match(served.url, /^https:\/\/127\.0\.0\.1:\d+$/)
    const ca = readFileSync(cert)

    const health = await httpsGet(`${served.url}/healthz`, ca)
    assert.equal(health.status, 200)
    assert.equal(health.headers['strict-transport-security'], 'max-age=31536000', 'HSTS on by default over HTTPS')
    assert.deepEqual(JSON.parse(health.body), { status: 'ok' })

    const unknown = await httpsGet(`${served.url}/no/such/page`, ca)
    assert.equal(unknown.status, 404, 'HTTPS counts as secure: not 403 code 92')
    assert.equal((JSON.parse(unknown.body) as { errors: Array<{ code: number }> }).errors[0]?.code, 34)

    assert.equal(await stop(served.child), 0)
  })
})

function httpsGet(url: string, ca: Buffer): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    get(url, { ca, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
    }).on('error', reject)
  })
}
