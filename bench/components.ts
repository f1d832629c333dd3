// `npx tsx bench/components.ts`: the parts of the verify path, timed one by one in-process on the
// real stores (SQLite, a fresh temp file), in µs of CPU time per call. It explains the bench's CPU µs per
// request; docs/performance.md quotes it. Pinned to CPU 0 when taskset exists.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { recordAudit } from '../src/domain/audit.ts'
import { identifyCaller } from '../src/domain/identify-caller.ts'
import { issueOrReuseBearerToken } from '../src/domain/oauth2/bearer-token.ts'
import { authenticateAppClient } from '../src/domain/oauth2/client-credentials.ts'
import { rateLimitStatus } from '../src/domain/rate-limit-status.ts'
import pino from 'pino'
import { parseSignedRequest } from '../src/domain/oauth1/parse-signed-request.ts'
import type { RequestInput } from '../src/domain/request.ts'
import { verifySignedRequest } from '../src/domain/oauth1/verify-signed-request.ts'
import { verifyUserContext } from '../src/domain/oauth1/verify-user-context.ts'
import { verifyBearer } from '../src/domain/oauth2/verify-bearer.ts'
import { verifySignature } from '../src/protocol/oauth1/signature.ts'
import { constantTimeEqual, newBearerTokenValue } from '../src/protocol/secrets.ts'
import { openDatabase } from '../src/storage/open-stores.ts'
import type { Database } from '../src/storage/sql/schema.ts'
import { newKeyring, parseKeyring, serializeKeyring } from '../src/storage/sealing/keyring.ts'
import { createSealer } from '../src/storage/sealing/sealer.ts'
import { openDomain, registerBench } from './setup.ts'
import { fastSigner } from './sign.ts'

if (spawnSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' }).status !== 0) console.log('(not pinned)')
const N = Number(process.argv[2] ?? 20_000)

/** Rounds per step; the least CPU time of a round is reported. */
const ROUNDS = 5

/**
 * CPU time of this process per call (user + system, every thread: GC and the checkpoint worker
 * included), not wall time: on a shared, loaded machine the wall clock measures the others too.
 * The calls run in ROUNDS rounds and the cheapest round counts: other work on the machine only
 * ever adds to a round's time (cache misses, a shared core), so the least is the closest to the
 * step's own cost.
 */
async function time(name: string, run: (i: number) => unknown): Promise<void> {
  const warm = N / 5
  const round = Math.ceil(N / ROUNDS)
  for (let i = 0; i < warm; i++) await run(i)
  let least = Infinity
  for (let r = 0, i = warm; r < ROUNDS; r++) {
    const started = process.cpuUsage()
    for (const end = i + round; i < end; i++) await run(i)
    const used = process.cpuUsage(started)
    least = Math.min(least, (used.user + used.system) / round)
  }
  console.log(`${least.toFixed(2).padStart(8)} µs  ${name}`)
}

const dir = mkdtempSync(join(tmpdir(), 'latchkey-components-'))
const database = join(dir, 'components.sqlite')
const masterKey = serializeKeyring(newKeyring())
const deps = await openDomain({ database }, masterKey, { rateLimitMultiplier: 1e9 })
try {
  const creds = await registerBench(deps)
  const sealer = createSealer(() => parseKeyring(masterKey))
  const keyHash = sealer.index(creds.consumerKey)
  const sign = fastSigner({
    method: 'GET',
    baseUri: 'https://127.0.0.1:8443/1.1/account/verify_credentials.json',
    consumer: { key: creds.consumerKey, secret: creds.consumerSecret },
    token: { key: creds.accessToken, secret: creds.accessTokenSecret },
  })
  // Fresh nonces for every call of every verifying step below, signed before the clock starts.
  const inputs = (): RequestInput[] =>
    Array.from({ length: N + N / 5 }, () => ({
      method: 'GET', scheme: 'https', host: '127.0.0.1:8443', path: '/1.1/account/verify_credentials.json', query: '',
      authorization: sign(), contentType: undefined, body: undefined, isSecure: true,
      rateLimit: { resource: '/account/verify_credentials' }, clientAddress: '127.0.0.1',
    }))
  const parsed = parseSignedRequest(inputs()[0]!)

  console.log(`${N} calls each, after ${N / 5} to warm up`)
  await time('sealer.index (HMAC-SHA256 keyed hash of a lookup key)', () => sealer.index(creds.consumerKey))
  await time('constantTimeEqual (2 × SHA-256 + timingSafeEqual)', () => constantTimeEqual(parsed.signature, parsed.signature))
  await time('verifySignature HMAC-SHA1 (sign + equalOfPublicLength)', () =>
    verifySignature('HMAC-SHA1', parsed.baseString, creds.consumerSecret, creds.accessTokenSecret, parsed.signature))
  let batch = inputs()
  await time('parseSignedRequest (header, parameters, base string)', (i) => parseSignedRequest(batch[i]!))

  const lookup = (kysely: Kysely<Database>) => kysely.selectFrom('apps').selectAll().where('consumer_key_hash', '=', keyHash)
  const plain = new Kysely<Database>({ dialect: new SqliteDialect({ database: new Sqlite(database) }) })
  await time('Kysely: build + compile the apps-by-key-hash query', () => lookup(plain).compile())
  await time('Kysely over plain better-sqlite3 (its driver prepares on every query)', () => lookup(plain).executeTakeFirst())
  await plain.destroy()
  const opened = await openDatabase(database)
  await time('Kysely as openDatabase opens it (src/storage/sqlite/open.ts)', () => lookup(opened).executeTakeFirst())
  await opened.destroy()
  const raw = new Sqlite(database, { readonly: true })
  const statement = raw.prepare('select * from "apps" where "consumer_key_hash" = ?')
  await time('better-sqlite3: a statement prepared once, .get()', () => statement.get(keyHash))
  await time('better-sqlite3: prepare + .get() (what Kysely does)', () => raw.prepare('select * from "apps" where "consumer_key_hash" = ?').get(keyHash))
  // The credential lookup's shape (33 columns of three left-joined tables): its row as an object
  // built by better-sqlite3, as an array (`raw`), and the array made an object in JS (src/storage/sql/prepared.ts).
  const columnsOf = (table: string) => (raw.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name).filter((name) => name !== 'name_key')
  const selected = [...columnsOf('apps').map((c) => `apps.${c} as app__${c}`), ...columnsOf('access_tokens').map((c) => `access_tokens.${c} as token__${c}`), ...columnsOf('users').map((c) => `users.${c} as owner__${c}`)]
  const joinedSql = `select ${selected.join(', ')} from (select 1 as one) as probe left join apps on apps.consumer_key_hash = ? left join access_tokens on access_tokens.token_hash = ? left join users on users.id = access_tokens.user_id`
  const joinedArgs = [keyHash, sealer.index(creds.accessToken)]
  const asObjects = raw.prepare(joinedSql)
  const asArrays = raw.prepare(joinedSql).raw(true)
  const names = asArrays.columns().map((column) => column.name)
  await time(`better-sqlite3: the credential lookup (${names.length} columns), row as an object`, () => asObjects.get(joinedArgs))
  await time('better-sqlite3: the same, row as an array (raw)', () => asArrays.get(joinedArgs))
  await time('better-sqlite3: the same, the array made an object in JS', () => {
    const values = asArrays.get(joinedArgs) as unknown[]
    const row: Record<string, unknown> = {}
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i]
    return row
  })
  raw.close()

  await time('stores.apps.findByConsumerKey (index + query + toApp)', () => deps.stores.apps.findByConsumerKey(creds.consumerKey))
  await time('stores.accessTokens.findByToken', () => deps.stores.accessTokens.findByToken(creds.accessToken))
  const userId = creds.accessToken.slice(0, creds.accessToken.indexOf('-'))
  await time('stores.users.findById', () => deps.stores.users.findById(userId))
  await time('stores.credentials.findConsumerWithAccessToken (app, token and owner: one query)', () =>
    deps.stores.credentials.findConsumerWithAccessToken(creds.consumerKey, creds.accessToken))
  const appId = (await deps.stores.apps.findByConsumerKey(creds.consumerKey))!.id
  const bearer = await deps.stores.bearerTokens.issueOrReuse({ token: newBearerTokenValue(), appId, createdAtMs: Date.now(), revokedAtMs: null })
  await time('stores.credentials.findBearerTokenWithApp (one query)', () => deps.stores.credentials.findBearerTokenWithApp(bearer.token))
  await time('stores.nonces.remember (memory)', (i) => {
    const timestampSeconds = Math.floor(Date.now() / 1000)
    return deps.stores.nonces.remember({ consumerKey: 'k', token: 't', nonce: `n${i}-${Math.random()}`, timestampSeconds }, (timestampSeconds + 330) * 1000, Date.now())
  })
  const limiter = deps.limiters.endpoints.get('/account/verify_credentials')!
  await time('limiter.hit (rate-limiter-flexible, memory)', () => limiter.hit('user:1:2'))
  await time('limiter.peek', () => limiter.peek('addr:127.0.0.1'))
  // The floor's parts (every route pays them): the request id, Fastify's per-request child logger, the access line.
  await time('randomUUID (the request id)', () => randomUUID())
  // As src/logging.ts makes it (its redaction list), writing to /dev/null.
  const redact = { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.consumerSecret', '*.secret', '*.token'], censor: '[redacted]' }
  const logger = pino({ level: 'info', redact }, pino.destination({ dest: '/dev/null', sync: false }))
  await time("pino: Fastify's per-request child logger (logger.child({ reqId }, {}))", (i) => logger.child({ reqId: `r${i}` }, {}))
  const child = logger.child({ reqId: 'f1d2' }, {})
  await time('pino: the request line through the child (before issue 16)', () => child.info({ method: 'GET', path: '/x', status: 200, ms: 3 }, 'request'))
  const accessLog = await import('../src/web/access-log.ts').catch(() => undefined)
  if (accessLog) {
    const controller = new accessLog.AccessLog(logger, { message: 'request', enabled: true })
    const request = { id: 'f1d2', method: 'GET', url: '/x?y=1', ip: '127.0.0.1', headers: { 'user-agent': 'bench' } } as unknown as FastifyRequest
    const reply = { statusCode: 200, elapsedTime: 3.2 } as unknown as FastifyReply
    await time('AccessLog: the fixed-shape request line (src/web/access-log.ts)', () => controller.requestCompleted(null, request, reply))
  }

  batch = inputs()
  await time('verifySignedRequest (the whole OAuth 1.0a check, one lookup)', (i) => verifySignedRequest(deps, batch[i]!, { tokenKind: 'access', charge: null }))
  batch = inputs()
  await time('verifyUserContext (the token owner comes with the token)', (i) => verifyUserContext(deps, batch[i]!))
  await time('verifyBearer (the token and its app, one query)', () => verifyBearer(deps, `Bearer ${bearer.token}`))
  const bearerInput: RequestInput = { ...batch[0]!, path: '/1.1/application/rate_limit_status.json', authorization: `Bearer ${bearer.token}` }
  await time('identifyCaller, Bearer (verifyBearer + chargeCall)', () => identifyCaller(deps, bearerInput, '/application/rate_limit_status'))
  const caller = (await identifyCaller(deps, bearerInput, null)).caller
  await time('rateLimitStatus, resources=application (peeks its limiters)', () => rateLimitStatus(deps, caller, '127.0.0.1', ['application']))
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(creds.consumerKey)}:${encodeURIComponent(creds.consumerSecret)}`).toString('base64')}`
  const tokenInput: RequestInput = {
    method: 'POST', scheme: 'https', host: '127.0.0.1:8443', path: '/oauth2/token', query: '', authorization: basic,
    contentType: 'application/x-www-form-urlencoded', body: Buffer.from('grant_type=client_credentials'), isSecure: true, clientAddress: '127.0.0.1',
  }
  await time('authenticateAppClient (app by key, constant-time secret check)', () => authenticateAppClient(deps, { clientId: creds.consumerKey, clientSecret: creds.consumerSecret }))
  await time('stores.bearerTokens.findLive', () => deps.stores.bearerTokens.findLive(appId))
  await time('recordAudit alone (one row, one commit: awaited one by one, no group)', () => recordAudit(deps, { event: 'bearer_token.issued', appId, address: '127.0.0.1', detail: { reused: true } }))
  await time('issueOrReuseBearerToken, existing token (the whole oauth2/token path)', () => issueOrReuseBearerToken(deps, tokenInput))
} finally {
  await deps.runtime.close()
  rmSync(dir, { recursive: true, force: true })
}
