import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { NonceStore, NonceUse, NonceVerdict } from '../types.ts'
import { waitUntilSecondAfter } from '../epoch.ts'
import { toStorageError } from '../unavailable.ts'
import { trackRunId } from './run-id.ts'
import { DEFAULT_NONCE_CAPACITY, DEFAULT_NONCE_NEAR_FULL, nonceRefusal, type NonceBudget } from '../nonce-share.ts'

/**
 * The nonce store's Lua, shared by its own scripts and a request's admission (admissions.ts).
 *
 * `settleEpoch`: the epoch marker is a hash {run, epoch}: the Redis run id it was written under and
 * the moment from which this Redis is known to hold every nonce. When it is missing (a Redis that
 * restarted without its data, a flush, an eviction) or was written under another run id (a restart
 * that reloaded an older snapshot, a failover to a replica that may have missed the last writes),
 * the nonces before now are lost: the epoch becomes now. Answers the epoch, in ms.
 *
 * `remember`: {-1} before the epoch, {0} a replay, {1} fresh: the nonce (`key`) then lives `lifeMs`.
 * `counts` are the held counts of the live expiry buckets: each a hash of '*' (all nonces) and one
 * field per consumer key, expiring with its bucket; the new nonce counts in the `own`-th of them
 * (expiring at `ownExpiresAt`). Before storing, the budget's two comparisons
 * (src/storage/nonce-share.ts): {-2, held, total} at the capacity, {-3, held, total} past the
 * near-full count for the consumer key holding its share. The apps holding nonces are counted as
 * the most any one bucket holds: never more than there are.
 */
export const NONCE_LUA = `
local function settleEpoch(marker, runId, nowMs)
  local fields = redis.call('HMGET', marker, 'run', 'epoch')
  local epoch = tonumber(fields[2])
  if fields[1] ~= runId or not epoch then
    epoch = tonumber(nowMs)
    redis.call('HSET', marker, 'run', runId, 'epoch', nowMs)
  end
  return epoch
end
local function remember(marker, key, counts, runId, nowMs, stampMs, lifeMs, own, consumerKey, capacity, nearFull, ownExpiresAt)
  local epoch = settleEpoch(marker, runId, nowMs)
  if tonumber(stampMs) < epoch then return {-1} end
  if redis.call('EXISTS', key) == 1 then return {0} end
  local total, held = 0, 0
  for i = 1, #counts do
    local found = redis.call('HMGET', counts[i], '*', consumerKey)
    total = total + (tonumber(found[1]) or 0)
    held = held + (tonumber(found[2]) or 0)
  end
  if total >= tonumber(capacity) then return {-2, held, total} end
  local nearFullCount = tonumber(nearFull)
  if total >= nearFullCount and held > 0 then -- an app holding none is under any share: no need to count the apps
    local apps = 0
    for i = 1, #counts do apps = math.max(apps, redis.call('HLEN', counts[i]) - 1) end
    if held * apps >= nearFullCount then return {-3, held, total} end
  end
  redis.call('SET', key, '1', 'PX', lifeMs)
  local ownCount = counts[tonumber(own)]
  redis.call('HINCRBY', ownCount, '*', 1)
  redis.call('HINCRBY', ownCount, consumerKey, 1)
  redis.call('PEXPIREAT', ownCount, ownExpiresAt)
  return {1}
end
`

const SETTLE_EPOCH = `${NONCE_LUA}
return tostring(settleEpoch(KEYS[1], ARGV[1], ARGV[2]))`

/** KEYS: the marker, the nonce, the held counts; ARGV: remember's other arguments (nonceScriptInput). */
const REMEMBER = `${NONCE_LUA}
return remember(KEYS[1], KEYS[2], {unpack(KEYS, 3)}, unpack(ARGV, 1, 9))`

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
export interface RedisNonceStore extends NonceStore {
  /** The keys and arguments of `remember` (NONCE_LUA) for one use, for a script of another that remembers it (admissions.ts). */
  scriptInput(use: NonceUse, expiresAtMs: number, nowMs: number, runId: string): { keys: string[]; args: Array<string | number> }
}

export function createRedisNonceStore(client: Redis, keyPrefix: string, budget: Partial<NonceBudget> = {}): RedisNonceStore {
  const redis = client as unknown as NonceClient
  if (typeof (client as unknown as Partial<NonceClient>).latchkeyNonce !== 'function') {
    redis.defineCommand('latchkeyNonceEpoch', { numberOfKeys: 1, lua: SETTLE_EPOCH })
    redis.defineCommand('latchkeyNonce', { lua: REMEMBER })
  }
  const { capacity, nearFull } = { capacity: DEFAULT_NONCE_CAPACITY, nearFull: DEFAULT_NONCE_NEAR_FULL, ...budget }
  const marker = epochMarker(keyPrefix)
  const runIds = trackRunId(redis)

  const scriptInput: RedisNonceStore['scriptInput'] = (use, expiresAtMs, nowMs, runId) => nonceScriptInput(keyPrefix, { capacity, nearFull }, use, expiresAtMs, nowMs, runId)
  return {
    scriptInput,
    async remember(use, expiresAtMs, nowMs) {
      try {
        const input = scriptInput(use, expiresAtMs, nowMs, await runIds.current())
        return verdictOf(use, await redis.latchkeyNonce(input.keys.length, ...input.keys, ...input.args))
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

const epochMarker = (keyPrefix: string) => `${keyPrefix}epoch`

/** The keys of `remember` (NONCE_LUA) for one use (the marker, the nonce and the held counts), then its other arguments. */
function nonceScriptInput(
  keyPrefix: string,
  budget: { capacity: number; nearFull: number },
  use: NonceUse,
  expiresAtMs: number,
  nowMs: number,
  runId: string,
): { keys: string[]; args: Array<string | number> } {
  const lifeMs = Math.max(1, Math.round(expiresAtMs - nowMs))
  const buckets = countBuckets(use, expiresAtMs, nowMs)
  const counts = buckets.ids.map((id) => `${keyPrefix}held:${id}`)
  return {
    keys: [epochMarker(keyPrefix), keyOf(keyPrefix, use), ...counts],
    args: [runId, nowMs, use.timestampSeconds * 1000, lifeMs, buckets.own + 1, use.consumerKey, budget.capacity, budget.capacity * budget.nearFull, (buckets.ids[buckets.own]! + 1) * COUNT_BUCKET_MS],
  }
}

/** The verdict of `remember`'s answer; a store that cannot take the nonce (full, or the app past its share) is a refusal. */
export function verdictOf(use: NonceUse, [answer, held, total]: number[]): NonceVerdict {
  if (answer === -2) throw nonceRefusal('full', use.consumerKey, held!, total!)
  if (answer === -3) throw nonceRefusal('over-share', use.consumerKey, held!, total!)
  return answer === 1 ? 'fresh' : answer === 0 ? 'replayed' : 'before-epoch'
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
