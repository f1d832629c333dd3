// `npx tsx bench/components.ts`: the parts of the verify path, timed one by one in-process on the
// real stores (SQLite, a fresh temp file), in µs per call. It explains the bench's CPU µs per
// request; docs/performance.md quotes it. Pinned to CPU 0 when taskset exists.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
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

async function time(name: string, run: (i: number) => unknown): Promise<void> {
  const warm = N / 5
  for (let i = 0; i < warm; i++) await run(i)
  const started = performance.now()
  for (let i = warm; i < warm + N; i++) await run(i)
  console.log(`${(((performance.now() - started) * 1000) / N).toFixed(2).padStart(8)} µs  ${name}`)
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
  const opened = openDatabase(database)
  await time('Kysely as openDatabase opens it (src/storage/sqlite/open.ts)', () => lookup(opened).executeTakeFirst())
  await opened.destroy()
  const raw = new Sqlite(database, { readonly: true })
  const statement = raw.prepare('select * from "apps" where "consumer_key_hash" = ?')
  await time('better-sqlite3: a statement prepared once, .get()', () => statement.get(keyHash))
  await time('better-sqlite3: prepare + .get() (what Kysely does)', () => raw.prepare('select * from "apps" where "consumer_key_hash" = ?').get(keyHash))
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
  await time('stores.nonces.remember (memory)', (i) => deps.stores.nonces.remember('k', `n${i}-${Math.random()}`, 300, Date.now()))
  const limiter = deps.limiters.endpoints.get('/account/verify_credentials')!
  await time('limiter.hit (rate-limiter-flexible, memory)', () => limiter.hit('user:1:2'))
  await time('limiter.peek', () => limiter.peek('addr:127.0.0.1'))
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }))
  await time('pino: one request log line (to /dev/null)', () => logger.info({ method: 'GET', path: '/x', status: 200, ms: 3 }, 'request'))

  batch = inputs()
  await time('verifySignedRequest (the whole OAuth 1.0a check, one lookup)', (i) => verifySignedRequest(deps, batch[i]!, { tokenKind: 'access' }))
  batch = inputs()
  await time('verifyUserContext (the token owner comes with the token)', (i) => verifyUserContext(deps, batch[i]!))
  await time('verifyBearer (the token and its app, one query)', () => verifyBearer(deps, `Bearer ${bearer.token}`))
} finally {
  await deps.runtime.close()
  rmSync(dir, { recursive: true, force: true })
}
