import { createHash, randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import pg from 'pg'
import { composeDomain } from '../src/composition/root.ts'
import { loadConfig } from '../src/config/load.ts'
import type { SettingName } from '../src/config/settings.ts'
import { checkAuthorizationRequest } from '../src/domain/oauth2-user/authorization-request.ts'
import { setOAuth2Client } from '../src/domain/oauth2-user/clients.ts'
import { approveAuthorizationRequest } from '../src/domain/oauth2-user/consent.ts'
import { createApp } from '../src/domain/registry/apps.ts'
import { issueOwnerToken } from '../src/domain/registry/owner-token.ts'
import { createUser } from '../src/domain/registry/users.ts'
import type { DomainDeps } from '../src/domain/deps.ts'
import type { BenchCredentials } from './shapes.ts'

export interface Storage {
  /** --database: a SQLite file or a postgres:// URL with its own search_path. */
  database: string
  redis?: { url: string; keyPrefix: string }
}

/** The stores and domain, opened in-process exactly as the CLI opens them (same config, same key). */
export async function openDomain(storage: Storage, masterKey: string, settings: Partial<Record<SettingName, unknown>> = {}): Promise<DomainDeps> {
  const config = loadConfig({
    env: { LATCHKEY_MASTER_KEY: masterKey },
    flags: { ...settings, database: storage.database, ...(storage.redis ? { redis: storage.redis.url, redisKeyPrefix: storage.redis.keyPrefix } : {}) },
  })
  return composeDomain(config)
}

const REDIRECT_URI = 'https://bench.example/callback'

/**
 * Registers what the bench signs with, before the server starts: a user, an app, the owner's access
 * token; with `userGrants`, the app's confidential OAuth 2.0 client and that many codes of the bench
 * person's consent (users.read offline.access), as the consent page makes them. A code lives 30 s:
 * the pre-checks exchange them right after the server starts.
 */
export async function registerBench(deps: DomainDeps, options: { userGrants?: number } = {}): Promise<BenchCredentials> {
  const user = await createUser(deps, { screenName: 'bench', password: `bench-${randomBytes(8).toString('hex')}` })
  const app = await createApp(deps, { name: 'Bench', owner: 'bench', callbackUrls: [REDIRECT_URI] })
  const { token } = await issueOwnerToken(deps, app.id)
  const checker = await createApp(deps, { name: 'Bench API', owner: 'bench', isResourceServer: true })
  const creds: BenchCredentials = {
    consumerKey: app.consumerKey,
    consumerSecret: app.consumerSecret,
    accessToken: token.token,
    accessTokenSecret: token.secret,
    resourceServer: { consumerKey: checker.consumerKey, consumerSecret: checker.consumerSecret },
  }
  if (!options.userGrants) return creds
  const client = await setOAuth2Client(deps, { appId: app.id, setting: 'confidential' })
  const codes = []
  for (let i = 0; i < options.userGrants; i++) {
    const verifier = randomBytes(32).toString('base64url')
    const check = await checkAuthorizationRequest(deps, {
      response_type: 'code',
      client_id: client.client!.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'users.read offline.access',
      state: 'bench',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })
    if (check.outcome !== 'valid') throw new Error(`bench set-up: the authorization request was refused: ${check.redirectTo}`)
    const { redirectTo } = await approveAuthorizationRequest(deps, check.request, { userId: user.id, address: null })
    codes.push({ code: new URL(redirectTo).searchParams.get('code')!, verifier })
  }
  return { ...creds, oauth2: { clientId: client.client!.clientId, clientSecret: client.newSecret!, codes } }
}

/** The token request that exchanges one of registerBench's codes. */
export const codeExchangeBody = (code: { code: string; verifier: string }) =>
  new URLSearchParams({ grant_type: 'authorization_code', code: code.code, redirect_uri: REDIRECT_URI, code_verifier: code.verifier }).toString()

export interface SharedBackends {
  storage: Storage
  /** Drops the schema and deletes every key under the prefix. */
  remove(): Promise<void>
}

const redact = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')

/**
 * A fresh PostgreSQL schema and Redis key prefix for shape 6, or the one-line reason they cannot
 * be had (a service that does not answer).
 */
export async function openSharedBackends(databaseUrl: string, redisUrl: string): Promise<SharedBackends | string> {
  const name = `latchkey_bench_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query(`create schema ${name}`)
  } catch (error) {
    return `PostgreSQL at ${redact(databaseUrl)} does not answer (${(error as Error).message || String(error)})`
  } finally {
    await client.end().catch(() => {})
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  redis.on('error', () => {})
  const dropSchema = async () => {
    const dropper = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 })
    await dropper.connect()
    await dropper.query(`drop schema if exists ${name} cascade`).finally(() => dropper.end())
  }
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    redis.disconnect()
    await dropSchema()
    return `Redis at ${redact(redisUrl)} does not answer (${(error as Error).message || String(error)})`
  }
  const keyPrefix = `${name}:`
  const separator = databaseUrl.includes('?') ? '&' : '?'
  return {
    storage: { database: `${databaseUrl}${separator}options=${encodeURIComponent(`-c search_path=${name}`)}`, redis: { url: redisUrl, keyPrefix } },
    async remove() {
      try {
        let cursor = '0'
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000)
          cursor = next
          if (keys.length > 0) await redis.del(...keys)
        } while (cursor !== '0')
      } finally {
        redis.disconnect()
        await dropSchema()
      }
    },
  }
}
