import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { NonceStore, NonceUse } from '../types.ts'
import { StorageUnavailableError } from '../errors.ts'
import { waitUntilSecondAfter } from '../epoch.ts'
import { toStorageError } from '../unavailable.ts'

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

/** -1 before the epoch (ARGV[3] is the timestamp in ms), 1 fresh, 0 a replay; the nonce (KEYS[2]) lives ARGV[4] ms. */
const REMEMBER = `${EPOCH_PRELUDE}
if tonumber(ARGV[3]) < epoch then return -1 end
if redis.call('SET', KEYS[2], '1', 'PX', ARGV[4], 'NX') then return 1 end
return 0`

type NonceClient = Redis & {
  latchkeyNonceEpoch(marker: string, runId: string, nowMs: string): Promise<string>
  latchkeyNonce(marker: string, key: string, runId: string, nowMs: string, timestampMs: string, lifeMs: string): Promise<number>
}

/**
 * The nonce store shared by every instance: one script per request, atomic, one round trip, that
 * checks the epoch marker and does `SET key 1 PX life NX`. Redis forgets a nonce by itself once its
 * request can no longer be timely. A key is the prefix and 128 bits of SHA-256 of (consumer key,
 * token, timestamp, nonce), so every key has the same small size whatever the client sent.
 * A Redis that is full (maxmemory with noeviction) answers OOM: 503 code 130 until memory frees.
 */
export function createRedisNonceStore(client: Redis, keyPrefix: string): NonceStore {
  const redis = client as unknown as NonceClient
  if (typeof (client as unknown as Partial<NonceClient>).latchkeyNonce !== 'function') {
    redis.defineCommand('latchkeyNonceEpoch', { numberOfKeys: 1, lua: SETTLE_EPOCH })
    redis.defineCommand('latchkeyNonce', { numberOfKeys: 2, lua: REMEMBER })
  }
  const marker = `${keyPrefix}epoch`
  const runIds = trackRunId(redis)

  return {
    async remember(use, expiresAtMs, nowMs) {
      try {
        const runId = await runIds.current()
        const lifeMs = Math.max(1, Math.round(expiresAtMs - nowMs))
        const answer = await redis.latchkeyNonce(marker, keyOf(keyPrefix, use), runId, String(nowMs), String(use.timestampSeconds * 1000), String(lifeMs))
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

function keyOf(keyPrefix: string, use: NonceUse): string {
  const token = use.token ?? ''
  // The lengths make the split unambiguous whatever characters the parts hold.
  const text = `${use.consumerKey.length}:${use.consumerKey}:${token.length}:${token}:${use.timestampSeconds}:${use.nonce}`
  return `${keyPrefix}${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`
}

/**
 * The run id of the Redis the connection is talking to, asked once per connection: forgotten when
 * the connection closes, so that the first command on a new connection (a restarted Redis, a
 * promoted replica) carries the new server's id.
 */
function trackRunId(redis: Redis): { current(): Promise<string> } {
  let runId: Promise<string> | undefined
  redis.on('close', () => (runId = undefined))
  return {
    current() {
      runId ??= redis
        .info('server')
        .then((info) => {
          const found = /^run_id:(\w+)/m.exec(info)?.[1]
          if (!found) throw new StorageUnavailableError('Redis did not say its run_id (INFO server)')
          return found
        })
        .catch((error: unknown) => {
          runId = undefined
          throw error
        })
      return runId
    },
  }
}
