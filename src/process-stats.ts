import { monitorEventLoopDelay } from 'node:perf_hooks'
import type { Logger } from 'pino'
import type { NonceStore } from './storage/types.ts'

/**
 * Every `intervalSeconds`, one "process stats" log line: resident memory, heap used, the event
 * loop's delay (p99 over the interval) and the in-memory nonce store's entries. Returns the stop.
 */
export function startProcessStats(logger: Logger, nonces: NonceStore, intervalSeconds: number): () => void {
  if (intervalSeconds <= 0) return () => {}
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const timer = setInterval(() => {
    const memory = process.memoryUsage()
    logger.info(
      {
        stats: {
          rssBytes: memory.rss,
          heapUsedBytes: memory.heapUsed,
          externalBytes: memory.external + memory.arrayBuffers,
          eventLoopDelayP99Ms: Math.round(delay.percentile(99) / 1e4) / 100,
          nonceEntries: nonces.entryCount(Date.now()) ?? null,
        },
      },
      'process stats',
    )
    delay.reset()
  }, intervalSeconds * 1000)
  timer.unref()
  return () => {
    clearInterval(timer)
    delay.disable()
  }
}
