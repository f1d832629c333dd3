import { randomInt } from 'node:crypto'
import { newConsumerKeys } from '../src/domain/registry/apps.ts'
import { randomAlphanumeric } from '../src/protocol/secrets.ts'
import { openDatabase } from '../src/storage/open-stores.ts'
import type { AccessTokenRecord, AppRecord } from '../src/storage/records.ts'
import { parseKeyring } from '../src/storage/sealing/keyring.ts'
import { createSealer } from '../src/storage/sealing/sealer.ts'
import { fromAccessToken, fromApp, fromUser } from '../src/storage/sql/rows.ts'
import type { BenchCredentials } from './shapes.ts'

export interface SeedOptions {
  apps: number
  tokens: number
  /** How many of the seeded credentials (chosen at random) are returned for the load to spread over. */
  sample: number
}

export interface SeedResult {
  users: number
  apps: number
  tokens: number
  seconds: number
  sample: BenchCredentials[]
}

const ROWS_PER_INSERT = 1000
const ROWS_PER_TRANSACTION = 100_000
/** Seeded ids live far above the time-based ones (about 7e14 today), below 2^53: no collision. */
const ID_BASE = 8_000_000_000_000_000

/**
 * Fills a migrated database with `apps` apps and `tokens` live access tokens (spread evenly over
 * the apps, each for a different user of the app) as the stores would write them: the real row
 * mapping and sealer under the server's keyring, in big transactions of multi-row inserts.
 */
export async function seedLarge(database: string, masterKey: string, options: SeedOptions): Promise<SeedResult> {
  const started = performance.now()
  const db = await openDatabase(database)
  const keyring = parseKeyring(masterKey)
  const sealer = createSealer(() => keyring)
  const perApp = Math.ceil(options.tokens / options.apps)
  const userCount = Math.max(perApp, Math.min(10_000, options.apps))
  const nowMs = Date.now()
  const userId = (i: number) => String(ID_BASE + i)
  const appId = (i: number) => String(ID_BASE + userCount + i)
  try {
    const { password_hash: passwordHash } = await db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow()
    const users = Array.from({ length: userCount }, (_, i) =>
      fromUser({ id: userId(i), screenName: `seed${i}`, name: `Seed ${i}`, passwordHash, createdAtMs: nowMs }),
    )
    await insertAll(db, 'users', users)

    const keys = Array.from({ length: options.apps }, () => newConsumerKeys())
    await insertAll(db, 'apps', keys.map((pair, i) => fromApp(seedApp(appId(i), userId(i % userCount), pair, nowMs), sealer)))

    const sampled = new Set<number>()
    while (sampled.size < Math.min(options.sample, options.tokens)) sampled.add(randomInt(options.tokens))
    const sample: BenchCredentials[] = []
    for (let from = 0; from < options.tokens; from += ROWS_PER_TRANSACTION) {
      const rows = []
      for (let i = from; i < Math.min(options.tokens, from + ROWS_PER_TRANSACTION); i++) {
        const app = i % options.apps
        const owner = userId((app + Math.floor(i / options.apps)) % userCount)
        const record: AccessTokenRecord = {
          token: `${owner}-${randomAlphanumeric(30)}`,
          secret: randomAlphanumeric(45),
          appId: appId(app),
          userId: owner,
          accessLevel: 'read-write',
          createdAtMs: nowMs,
          revokedAtMs: null,
        }
        rows.push(fromAccessToken(record, sealer))
        if (sampled.has(i)) sample.push({ ...keys[app]!, accessToken: record.token, accessTokenSecret: record.secret })
      }
      await insertAll(db, 'access_tokens', rows)
    }
    return { users: userCount, apps: options.apps, tokens: options.tokens, seconds: (performance.now() - started) / 1000, sample }
  } finally {
    await db.destroy()
  }
}

function seedApp(id: string, ownerId: string, keys: { consumerKey: string; consumerSecret: string }, nowMs: number): AppRecord {
  return {
    id,
    name: `Seed app ${id}`,
    description: '',
    website: '',
    ownerId,
    ...keys,
    callbackUrls: [],
    accessLevel: 'read-write',
    type: 'web',
    isSignInEnabled: false,
    signatureMethods: ['HMAC-SHA1'],
    isSuspended: false,
    isResourceServer: false,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  }
}

type Db = Awaited<ReturnType<typeof openDatabase>>

/** Multi-row inserts, ROWS_PER_TRANSACTION rows per transaction. */
async function insertAll(db: Db, table: 'users' | 'apps' | 'access_tokens', rows: object[]): Promise<void> {
  for (let from = 0; from < rows.length; from += ROWS_PER_TRANSACTION) {
    await db.transaction().execute(async (tx) => {
      const end = Math.min(rows.length, from + ROWS_PER_TRANSACTION)
      for (let at = from; at < end; at += ROWS_PER_INSERT) {
        await tx.insertInto(table).values(rows.slice(at, Math.min(end, at + ROWS_PER_INSERT)) as never).execute()
      }
    })
  }
}
