import type { LimitSpec } from '../types.ts'

/**
 * Fixed windows in Redis: a key per limiter and subject holding the window's count, created by its
 * first hit and expiring with the window. `hit(key, points, windowSeconds)` counts `points` (a
 * negative one gives hits back) and answers {count, ms left}. A Lua function, so that the limiter's
 * own script and a request's admission (admissions.ts) count in the same way.
 */
export const FIXED_WINDOW_LUA = `
local function hit(key, points, windowSeconds)
  redis.call('SET', key, 0, 'EX', windowSeconds, 'NX')
  local count = redis.call('INCRBY', key, points)
  local msLeft = redis.call('PTTL', key)
  if msLeft == -1 then
    redis.call('EXPIRE', key, windowSeconds)
    msLeft = windowSeconds * 1000
  end
  return {count, msLeft}
end
`

/** A subject's key of a limiter. */
export function windowKey(keyPrefix: string, spec: LimitSpec, subject: string): string {
  return `${keyPrefix}${spec.name}:${subject}`
}
