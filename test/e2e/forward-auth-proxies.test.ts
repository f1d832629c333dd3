// Protecting an API with no code (docs/forward-auth.md): real nginx and real Caddy, each started
// on the configuration files of docs/resource-servers/ as they are, in front of a small API, call
// /latchkey/forward-auth for every request. Real client libraries sign through them: Python's
// requests-oauthlib and the npm oauth-1.0a package. nginx and Caddy are Debian's packages (.ci/run
// installs them); outside CI a missing one skips its tests with the reason, under CI=true it fails.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, test } from 'node:test'
import { FORM_BODY_REASON } from '../../src/domain/forward-auth.ts'
import { issueEveryCredential, type EveryCredential } from '../helpers/fixtures.ts'
import { send, signRequest, type HttpAnswer } from '../helpers/oauth1-client.ts'
import { startTestServer, type TestServer } from '../helpers/test-app.ts'
import { PYTHON, pythonSkip } from './clients/python-flow.ts'

const NGINX_CONF = fileURLToPath(new URL('../../docs/resource-servers/nginx.conf', import.meta.url))
const CADDYFILE = fileURLToPath(new URL('../../docs/resource-servers/Caddyfile', import.meta.url))
const PYTHON_CLIENT = fileURLToPath(new URL('./forward_auth_client.py', import.meta.url))
const PROTECTED = 'the protected file\n'
/** Failures per client address at the endpoint: low enough for the 429 test to reach. */
const ADDRESS_LIMIT = 25

const isCi = /^(1|true|yes)$/i.test(process.env.CI ?? '')

/** Whether Debian's binary is there: outside CI its absence skips with the reason, under CI=true the tests run and fail. */
function binarySkip(path: string, pkg: string): { unavailable: string | undefined; skip: string | false } {
  const unavailable = existsSync(path) ? undefined : `${path} is missing (apt-get install ${pkg})`
  return { unavailable, skip: !isCi && unavailable ? unavailable : false }
}

async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, 'close')
  return port
}

/** Resolves once something accepts connections on the port; rejects when the process exits first or 15 s pass. */
async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} before listening: ${log()}`)
    const isOpen = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => resolve(true)).once('error', () => resolve(false))
      socket.once('close', () => socket.destroy())
      setTimeout(() => socket.end(), 50)
    })
    if (isOpen) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`not listening on ${port} after 15 s: ${log()}`)
}

interface Proxy {
  url: string
  stop(): Promise<void>
}

async function stopped(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
  }
  rmSync(dir, { recursive: true, force: true })
}

/** nginx, unprivileged paths in a folder of its own, its server block the doc's file included as it is. */
async function startNginx(latchkeyPort: number, apiPort: number): Promise<Proxy> {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-nginx-'))
  const port = await freePort()
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${join(dir, name)};`).join(' ')
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  ${temp}
  upstream latchkey { server 127.0.0.1:${latchkeyPort}; }
  upstream protected_api { server 127.0.0.1:${apiPort}; }
  server {
    listen 127.0.0.1:${port};
    include ${NGINX_CONF};
  }
}
`,
  )
  const child = spawn('/usr/sbin/nginx', ['-e', join(dir, 'error.log'), '-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' })
  const log = () => (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '')
  await waitForPort(port, child, log)
  return { url: `http://127.0.0.1:${port}`, stop: () => stopped(child, dir) }
}

/** Caddy on the doc's Caddyfile as it is, the addresses in its environment, the admin endpoint off. */
async function startCaddy(latchkeyPort: number, apiPort: number): Promise<Proxy> {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-caddy-'))
  for (const sub of ['data', 'config']) mkdirSync(join(dir, sub))
  const port = await freePort()
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    SITE_ADDRESS: `http://127.0.0.1:${port}`,
    LATCHKEY_ADDRESS: `127.0.0.1:${latchkeyPort}`,
    API_ADDRESS: `127.0.0.1:${apiPort}`,
    CADDY_ADMIN: 'off',
  }
  const child = spawn('/usr/bin/caddy', ['run', '--config', CADDYFILE, '--adapter', 'caddyfile'], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let output = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (output += chunk))
  await waitForPort(port, child, () => output)
  return { url: `http://127.0.0.1:${port}`, stop: () => stopped(child, dir) }
}

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** The API behind the proxy: it answers the protected file and remembers what reached it. */
async function startApi(): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => void (body += chunk))
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      response.writeHead(200, { 'content-type': 'text/plain' }).end(PROTECTED)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, port: (server.address() as AddressInfo).port, seen }
}

interface PythonAnswer {
  status: number
  body: string
  headers: Record<string, string>
}

/** One request signed by requests-oauthlib (forward_auth_client.py); spawned, not run synchronously: Latchkey answers in this process. */
async function pythonRequest(method: string, url: string, credentials: EveryCredential, form?: Record<string, string>): Promise<PythonAnswer> {
  const args = [PYTHON_CLIENT, method, url, credentials.consumer.key, credentials.consumer.secret, credentials.token.key, credentials.token.secret, ...(form ? [JSON.stringify(form)] : [])]
  const child = spawn(PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
  const [code] = (await once(child, 'close')) as [number]
  assert.equal(code, 0, stderr)
  return JSON.parse(stdout) as PythonAnswer
}

const X_401_BODY = { errors: [{ code: 32, message: 'Could not authenticate you.' }] }
const identityOf = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('x-latchkey-')))

const nginx = binarySkip('/usr/sbin/nginx', 'nginx')
const caddy = binarySkip('/usr/bin/caddy', 'caddy')
const python = pythonSkip()

describe('an API protected by a reverse proxy and /latchkey/forward-auth', () => {
  let latchkey: TestServer
  let api: Awaited<ReturnType<typeof startApi>>
  let issued: EveryCredential
  const latchkeyPort = () => Number(new URL(latchkey.url).port)

  before(async () => {
    latchkey = await startTestServer({ http: { trustProxy: ['127.0.0.1'] }, settings: { rateLimits: { '/latchkey/forward-auth': ADDRESS_LIMIT } } })
    api = await startApi()
    issued = await issueEveryCredential(latchkey.domain)
  })
  after(async () => {
    api?.server.close()
    await latchkey?.close()
  })

  for (const [name, binary] of [
    ['nginx', nginx],
    ['Caddy', caddy],
  ] as const) {
    test(`${name} is installed (a failure only under CI)`, { skip: binary.skip }, () => {
      assert.equal(binary.unavailable, undefined, binary.unavailable)
    })
  }

  test('a call from an address not in --trust-proxy is refused: 403 code 1010, nothing checked', async () => {
    const signed = signRequest({ consumer: issued.consumer, token: issued.token, method: 'GET', url: 'http://api.example/v1/notes' })
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const call = httpRequest(
        `${latchkey.url}/latchkey/forward-auth`,
        { localAddress: '127.0.0.3', headers: { ...signed.headers, 'x-original-uri': '/v1/notes', 'x-forwarded-host': 'api.example' } },
        (response) => {
          let body = ''
          response.setEncoding('utf8').on('data', (chunk: string) => void (body += chunk))
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
        },
      )
      call.on('error', reject).end()
    })
    assert.equal(answer.status, 403)
    assert.deepEqual(JSON.parse(answer.body), { errors: [{ code: 1010, message: 'Only a reverse proxy named in --trust-proxy may call this endpoint.' }] })
  })

  test("nginx, when Latchkey does not answer: 503 code 130, never the API", { skip: nginx.skip }, async () => {
    const proxy = await startNginx(await freePort(), api.port)
    try {
      const before = api.seen.length
      assertXRefusal(await send({ method: 'GET', url: `${proxy.url}/v1/notes`, headers: { authorization: `Bearer ${issued.bearer}` } }), 503, { errors: [{ code: 130, message: 'Over capacity' }] })
      assert.equal(api.seen.length, before)
    } finally {
      await proxy.stop()
    }
  })

  for (const [name, binary, start] of [
    ['nginx', nginx, startNginx],
    ['Caddy', caddy, startCaddy],
  ] as const) {
    describe(`behind ${name}`, { skip: binary.skip }, () => {
      let proxy: Proxy
      before(async () => {
        proxy = await start(latchkeyPort(), api.port)
      })
      after(() => proxy?.stop())

      const reached = () => api.seen.length
      const through = (path: string) => `${proxy.url}${path}`

      test('requests-oauthlib: a signed GET with a query gets the file, and the API hears who asked', { skip: python.skip }, async () => {
        const answer = await pythonRequest('GET', through('/v1/notes?sort=new&page=2'), issued)
        assert.equal(answer.status, 200, answer.body)
        assert.equal(answer.body, PROTECTED)
        const last = api.seen.at(-1)!
        assert.equal(last.url, '/v1/notes?sort=new&page=2')
        assert.deepEqual(present(identityOf(last.headers)), {
          'x-latchkey-user-id': issued.user.id,
          'x-latchkey-screen-name': issued.user.screenName,
          'x-latchkey-app-id': issued.app.id,
          'x-latchkey-token-kind': 'oauth1_user',
          'x-latchkey-access-level': 'read-write',
        })
      })

      test('requests-oauthlib: a POST signed over a form body is refused with the reason, and the API never sees it', { skip: python.skip }, async () => {
        const before = reached()
        const answer = await pythonRequest('POST', through('/v1/notes'), issued, { text: 'hello' })
        assert.equal(answer.status, 401)
        assert.deepEqual(JSON.parse(answer.body), X_401_BODY)
        assert.equal(answer.headers['x-latchkey-reason'], FORM_BODY_REASON)
        assert.equal(reached(), before)
      })

      test('oauth-1.0a: a signed PUT with a JSON body passes, body and all; the same request again is a replay', async () => {
        const signed = signRequest({ consumer: issued.consumer, token: issued.token, method: 'PUT', url: through('/v1/notes/7') })
        const request = { ...signed, headers: { ...signed.headers, 'content-type': 'application/json' }, body: '{"text":"hi"}' }
        const answer = await send(request)
        assert.equal(answer.status, 200, answer.text)
        assert.equal(answer.text, PROTECTED)
        const last = api.seen.at(-1)!
        assert.deepEqual([last.method, last.url, last.body, last.headers['x-latchkey-user-id']], ['PUT', '/v1/notes/7', '{"text":"hi"}', issued.user.id])
        const replay = await send(request)
        assert.equal(replay.status, 401)
        assert.deepEqual(replay.json ?? JSON.parse(replay.text), X_401_BODY)
      })

      test("a bad signature gets X's 401 body and WWW-Authenticate through the proxy", async () => {
        const before = reached()
        const answer = await send(signRequest({ consumer: { ...issued.consumer, secret: 'wrong' }, token: issued.token, method: 'GET', url: through('/v1/notes') }))
        assertXRefusal(answer, 401, X_401_BODY)
        assert.equal(answer.headers.get('www-authenticate'), 'OAuth realm="Latchkey"')
        assert.equal(reached(), before)
      })

      test("no credentials at all: X's 400 code 215", async () => {
        assertXRefusal(await send({ method: 'GET', url: through('/v1/notes') }), 400, { errors: [{ code: 215, message: 'Bad Authentication data.' }] })
      })

      test('an app-only bearer token passes; a person the client names in its own headers never reaches the API', async () => {
        const answer = await send({ method: 'GET', url: through('/v1/public'), headers: { authorization: `Bearer ${issued.bearer}`, 'x-latchkey-user-id': '1', 'x-latchkey-screen-name': 'forged' } })
        assert.equal(answer.status, 200, answer.text)
        assert.deepEqual(present(identityOf(api.seen.at(-1)!.headers)), { 'x-latchkey-app-id': issued.app.id, 'x-latchkey-token-kind': 'bearer', 'x-latchkey-access-level': 'read-write' })
      })

      test('an OAuth 2.0 user token passes with its scopes', async () => {
        const answer = await send({ method: 'DELETE', url: through('/v1/me'), headers: { authorization: `Bearer ${issued.userAccessToken}` } })
        assert.equal(answer.status, 200, answer.text)
        const identity = identityOf(api.seen.at(-1)!.headers)
        assert.deepEqual([identity['x-latchkey-user-id'], identity['x-latchkey-scopes'], identity['x-latchkey-token-kind']], [issued.user.id, 'users.read', 'oauth2_user'])
      })

      if (name === 'nginx') {
        test("past the address limit, X's 429 code 88 (which nginx's auth_request alone would turn into 500)", async () => {
          const from = { 'x-forwarded-for': '203.0.113.9' }
          const fail = () => send({ method: 'GET', url: through('/v1/notes'), headers: { ...from, authorization: 'Bearer AAAAAAAAAAAAAAAAAAAAAnotatoken' } })
          for (let i = 0; i < ADDRESS_LIMIT; i++) assert.equal((await fail()).status, 401)
          assertXRefusal(await fail(), 429, { errors: [{ code: 88, message: 'Rate limit exceeded' }] })
        })
      }
    })
  }
})

/** A refusal as X gives it: the status, the JSON body and its content type. */
function assertXRefusal(answer: HttpAnswer, status: number, body: object): void {
  assert.equal(answer.status, status, answer.text)
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/)
  assert.deepEqual(JSON.parse(answer.text), body)
}

/** Headers with a value: Latchkey sends the ones a credential has no value for empty, and Caddy passes them on so. */
const present = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== ''))
