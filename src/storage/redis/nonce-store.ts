import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { NonceStore, NonceUse } from '../types.ts'
import { waitUntilSecondAfter } from '../epoch.ts'
import { toStorageError } from '../unavailable.ts'
import { trackRunId } from './run-id.ts'
import { DEFAULT_NONCE_CAPACITY, DEFAULT_NONCE_NEAR_FULL, nonceRefusal, type NonceBudget } from '../nonce-share.ts'

/**
 * The epoch marker (KEYS[1]) is a hash {run, epoch}: the Redis run id it was written under and the
 * moment from which this Redis is known to hold every nonce. When it is missing (a Redis that
 * restarted without its data, a flush, an eviction) or was written under another run id (a restart
 * that reloaded an older snapshot, a failover to a replica that may have missed the last writes),
 * the nonces before now are lost: the epoch becomes now (ARGV[2]).
 */
const EPOCH_PRELUDE = `
local marker = redis.call('HMGET', KEYS[1], 'run', 'epoch')
local epoch = tonumber(marker[2])
if marker[1] ~= ARGV[1] or not epoch then
  epoch = tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'run', ARGV[1], 'epoch', ARGV[2])
end
`

/** The epoch, in ms. */
const SETTLE_EPOCH = `${EPOCH_PRELUDE}
return tostring(epoch)`

/**
 * {-1} before the epoch (ARGV[3] is the timestamp in ms), {0} a replay, {1} fresh: the nonce
 * (KEYS[2]) then lives ARGV[4] ms. KEYS[3..] are the held counts of the live expiry buckets: each a
 * hash of '*' (all nonces) and one field per consumer key, expiring with its bucket; the new nonce
 * counts in the ARGV[5]-th of them (expiring at ARGV[9]). Before storing, the budget's two
 * comparisons (src/storage/nonce-share.ts): {-2, held, total} at the capacity (ARGV[7]), {-3, held,
 * total} past the near-full count (ARGV[8]) for the consumer key (ARGV[6]) holding its share. The
 * apps holding nonces are counted as the most any one bucket holds: never more than there are.
 */
const REMEMBER = `${EPOCH_PRELUDE}
if tonumber(ARGV[3]) < epoch then return {-1} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {0} end
local total, held = 0, 0
for i = 3, #KEYS do
  local counts = redis.call('HMGET', KEYS[i], '*', ARGV[6])
  total = total + (tonumber(counts[1]) or 0)
  held = held + (tonumber(counts[2]) or 0)
end
if total >= tonumber(ARGV[7]) then return {-2, held, total} end
local nearFull = tonumber(ARGV[8])
if total >= nearFull and held > 0 then -- an app holding none is under any share: no need to count the apps
  local apps = 0
  for i = 3, #KEYS do apps = math.max(apps, redis.call('HLEN', KEYS[i]) - 1) end
  if held * apps >= nearFull then return {-3, held, total} end
end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[4])
local own = KEYS[2 + tonumber(ARGV[5])]
redis.call('HINCRBY', own, '*', 1)
redis.call('HINCRBY', own, ARGV[6], 1)
redis.call('PEXPIREAT', own, ARGV[9])
return {1}`

/** Held counts are kept per this many ms of expiry: a count outlives its nonces by less than this. */
const COUNT_BUCKET_MS = 30_000

type NonceClient = Redis & {
  latchkeyNonceEpoch(marker: string, runId: string, nowMs: string): Promise<string>
  latchkeyNonce(...keysThenArgs: (string | number)[]): Promise<number[]>
}

/**
 * The nonce store shared by every instance: one script per request, atomic, one round trip, that
 * checks the epoch marker and does `SET key 1 PX life NX`. Redis forgets a nonce by itself once its
 * request can no longer be timely. A key is the prefix and 128 bits of SHA-256 of (consumer key,
 * token, timestamp, nonce), so every key has the same small size whatever the client sent.
 * A Redis that is full (maxmemory with noeviction) answers OOM: 503 code 130 until memory frees.
 * The budget is the deployment's: every instance counts in the same hashes.
 */
export function createRedisNonceStore(client: Redis, keyPrefix: string, budget: Partial<NonceBudget> = {}): NonceStore {
  const redis = client as unknown as NonceClient
  if (typeof (client as unknown as Partial<NonceClient>).latchkeyNonce !== 'function') {
    redis.defineCommand('latchkeyNonceEpoch', { numberOfKeys: 1, lua: SETTLE_EPOCH })
    redis.defineCommand('latchkeyNonce', { lua: REMEMBER })
  }
  const { capacity, nearFull } = { capacity: DEFAULT_NONCE_CAPACITY, nearFull: DEFAULT_NONCE_NEAR_FULL, ...budget }
  const marker = `${keyPrefix}epoch`
  const runIds = trackRunId(redis)

  return {
    async remember(use, expiresAtMs, nowMs) {
      try {
        const runId = await runIds.current()
        const lifeMs = Math.max(1, Math.round(expiresAtMs - nowMs))
        const buckets = countBuckets(use, expiresAtMs, nowMs)
        const counts = buckets.ids.map((id) => `${keyPrefix}held:${id}`)
        const [answer, held, total] = await redis.latchkeyNonce(
          2 + counts.length,
          marker,
          keyOf(keyPrefix, use),
          ...counts,
          runId,
          nowMs,
          use.timestampSeconds * 1000,
          lifeMs,
          buckets.own + 1,
          use.consumerKey,
          capacity,
          capacity * nearFull,
          (buckets.ids[buckets.own]! + 1) * COUNT_BUCKET_MS,
        )
        if (answer === -2) throw nonceRefusal('full', use.consumerKey, held!, total!)
        if (answer === -3) throw nonceRefusal('over-share', use.consumerKey, held!, total!)
        return answer === 1 ? 'fresh' : answer === 0 ? 'replayed' : 'before-epoch'
      } catch (error) {
        throw toStorageError(error, 'Redis')
      }
    },
    async settleEpoch() {
      try {
        const epochMs = Number(await redis.latchkeyNonceEpoch(marker, await runIds.current(), String(Date.now())))
        await waitUntilSecondAfter(epochMs)
      } catch (error) {
        throw toStorageError(error, 'Redis')
      }
    },
    entryCount: () => undefined,
  }
}

/**
 * The count buckets that may hold a live nonce at nowMs, and which of them counts this one. A nonce
 * lives `life` past its timestamp, and a timely timestamp is at most `life` ahead of now, so none
 * expires later than now + 2 × life.
 */
function countBuckets(use: NonceUse, expiresAtMs: number, nowMs: number): { ids: number[]; own: number } {
  const life = Math.max(0, expiresAtMs - use.timestampSeconds * 1000)
  const first = Math.floor(nowMs / COUNT_BUCKET_MS)
  const ownId = Math.max(first, Math.floor(expiresAtMs / COUNT_BUCKET_MS))
  const last = Math.max(ownId, Math.floor((nowMs + 2 * life) / COUNT_BUCKET_MS))
  const ids = Array.from({ length: last - first + 1 }, (_, i) => first + i)
  return { ids, own: ownId - first }
}

function keyOf(keyPrefix: string, use: NonceUse): string {
  const token = use.token ?? ''
  // The lengths make the split unambiguous whatever characters the parts hold.
  const text = `${use.consumerKey.length}:${use.consumerKey}:${token.length}:${token}:${use.timestampSeconds}:${use.nonce}`
  return `${keyPrefix}${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`
}
