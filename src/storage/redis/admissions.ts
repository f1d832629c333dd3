import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { limitStateOf } from '../flexible-limiter.ts'
import type { Admission, AdmissionStore } from '../types.ts'
import { toStorageError } from '../unavailable.ts'
import { FIXED_WINDOW_LUA, windowKey } from './fixed-window.ts'
import { NONCE_LUA, verdictOf, type RedisNonceStore } from './nonce-store.ts'
import type { RedisGeneration } from './generation.ts'
import { trackRunId } from './run-id.ts'

/**
 * A request's admission in one script, so one round trip (the rule is createAdmissions', in
 * src/storage/admissions.ts). KEYS: the generation, the address's window, the caller's window, then
 * the nonce's keys (nonce-store.ts). ARGV: a new generation value for a key found missing ('' when
 * the generation is not read here), the address's limit ('' for none), the caller's window and
 * limit ('' for none), then the nonce's arguments ('' for none). Answers the outcome, the count and
 * time left of the window it names, the generation ('' when not read), and the nonce's answer.
 */
const ADMIT = `${FIXED_WINDOW_LUA}${NONCE_LUA}
local function generation()
  if ARGV[1] == '' then return '' end
  local value = redis.call('GET', KEYS[1])
  if not value then
    redis.call('SET', KEYS[1], ARGV[1], 'NX')
    value = redis.call('GET', KEYS[1]) or ARGV[1]
  end
  return value
end
if ARGV[2] ~= '' then
  local count = tonumber(redis.call('GET', KEYS[2]) or '0')
  if count >= tonumber(ARGV[2]) then return {'address', count, redis.call('PTTL', KEYS[2]), generation()} end
end
local charged = {0, 0}
if ARGV[3] ~= '' then
  charged = hit(KEYS[3], 1, ARGV[3])
  if charged[1] > tonumber(ARGV[4]) then return {'charge', charged[1], charged[2], generation()} end
end
if ARGV[5] == '' then return {'admitted', charged[1], charged[2], generation()} end
local answer = remember(KEYS[4], KEYS[5], {unpack(KEYS, 6)}, unpack(ARGV, 5, 13))
if answer[1] ~= 1 and ARGV[3] ~= '' then hit(KEYS[3], -1, ARGV[3]) end
return {'nonce', charged[1], charged[2], generation(), answer[1], answer[2] or 0, answer[3] or 0}`

type Answer = [outcome: 'address' | 'charge' | 'admitted' | 'nonce', count: number, msLeft: number, generation: string, ...nonce: number[]]

type AdmissionClient = Redis & { latchkeyAdmit(...keysThenArgs: Array<string | number>): Promise<Answer> }

/**
 * Admissions shared by every instance, where the limiters (limiter.ts, under `limitPrefix`), the
 * nonces and, on PostgreSQL, the credentials' generation live in one Redis: the generation is read
 * in the same script, so that the validity cache confirms its answers without a round trip of its
 * own (src/composition/store-layers.ts). Not while a move of this process is owed: its cache then
 * asks the database.
 */
export function createRedisAdmissions(
  client: Redis,
  shared: { limitPrefix: string; nonces: RedisNonceStore; generation?: Pick<RedisGeneration, 'key' | 'isOwed'> | undefined },
): AdmissionStore {
  const redis = client as unknown as AdmissionClient
  if (typeof (client as unknown as Partial<AdmissionClient>).latchkeyAdmit !== 'function') redis.defineCommand('latchkeyAdmit', { lua: ADMIT })
  const runIds = trackRunId(redis)
  const { limitPrefix, nonces, generation } = shared
  return {
    async admit({ address, charge, nonce, lookedUp }) {
      try {
        const startedMs = Date.now()
        const runId = await runIds.current()
        const nonceInput = nonce && nonces.scriptInput(nonce.use, nonce.expiresAtMs, nonce.nowMs, runId)
        const readsGeneration = generation !== undefined && !generation.isOwed()
        const keys = [
          generation?.key ?? '',
          address ? windowKey(limitPrefix, address.limiter.spec, address.subject) : '',
          charge ? windowKey(limitPrefix, charge.limiter.spec, charge.subject) : '',
          ...(nonceInput?.keys ?? []),
        ]
        const args = [
          readsGeneration ? randomUUID() : '',
          address ? address.limiter.spec.limit : '',
          charge ? charge.limiter.spec.windowSeconds : '',
          charge ? charge.limiter.spec.limit : '',
          ...(nonceInput?.args ?? ['']),
        ]
        const [outcome, count, msLeft, value, ...nonceAnswer] = await redis.latchkeyAdmit(keys.length, ...keys, ...args)
        // While a move is owed the generation is not read, and a lookup the cache answered before it was owed is checked again.
        const admitted: Admission = { lookupIsCurrent: readsGeneration || !generation || !lookedUp, generation: value === '' ? undefined : `${runId}:${value}` }
        if (outcome === 'address') return { ...admitted, refusedBy: 'address', address: limitStateOf(address!.limiter.spec, startedMs, { count, msLeft }, false) }
        const limit = charge && limitStateOf(charge.limiter.spec, startedMs, { count, msLeft }, count <= charge.limiter.spec.limit)
        if (outcome === 'charge') return { ...admitted, refusedBy: 'charge', charge: limit }
        return { ...admitted, charge: limit, verdict: nonce && verdictOf(nonce.use, nonceAnswer) }
      } catch (error) {
        throw toStorageError(error, 'Redis')
      }
    },
  }
}
