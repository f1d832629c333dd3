import type { LimitState, Limiter, LimiterFactory } from '../types.ts'

/**
 * Limiters of one process in fixed windows of a given clock: the test mode's, whose clock a test
 * suite moves (a window ends when the moved clock says so) and whose counts a reset forgets.
 * Otherwise as createMemoryLimiterFactory: a window starts at a key's first hit.
 */
export interface ClockedLimiterFactory extends LimiterFactory {
  /** Forgets every count of every limiter. */
  clear(): void
}

interface Window {
  startedMs: number
  hits: number
}

export function createClockedLimiterFactory(nowMs: () => number): ClockedLimiterFactory {
  const limiters = new Set<Map<string, Window>>()
  return {
    create(name, limit, windowSeconds) {
      const windows = new Map<string, Window>()
      limiters.add(windows)
      const windowMs = windowSeconds * 1000
      const current = (key: string, now: number): Window | undefined => {
        const window = windows.get(key)
        if (window && now < window.startedMs + windowMs) return window
        windows.delete(key)
        return undefined
      }
      const state = (window: Window | undefined, now: number, isAllowed: boolean): LimitState => ({
        isAllowed,
        limit,
        remaining: Math.max(0, limit - (window?.hits ?? 0)),
        resetAtMs: (window?.startedMs ?? now) + windowMs,
      })
      const limiter: Limiter = {
        spec: { name, limit, windowSeconds },
        async hit(key) {
          const now = nowMs()
          const window = current(key, now) ?? { startedMs: now, hits: 0 }
          window.hits += 1
          windows.set(key, window)
          return state(window, now, window.hits <= limit)
        },
        async peek(key) {
          const now = nowMs()
          const window = current(key, now)
          return state(window, now, (window?.hits ?? 0) < limit)
        },
        async reset(key) {
          windows.delete(key)
        },
        async refund(key) {
          const window = current(key, nowMs())
          if (window && window.hits > 0) window.hits -= 1
        },
      }
      return limiter
    },
    clear() {
      for (const windows of limiters) windows.clear()
    },
  }
}
