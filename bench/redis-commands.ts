import { Redis } from 'ioredis'
import { Connection } from './http-client.ts'
import { buildRequest, type BenchCredentials, type RequestKind, type Target } from './shapes.ts'

/** Redis's count of every command it has run (INFO commandstats), and how many of them were INFO itself. */
async function commandsRun(redis: Redis): Promise<{ all: number; info: number }> {
  const stats = await redis.info('commandstats')
  let all = 0
  let info = 0
  for (const [, name, calls] of stats.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)) {
    all += Number(calls)
    if (name === 'info') info += Number(calls)
  }
  return { all, info }
}

/**
 * The Redis commands one request of `kind` costs, counted by Redis itself (INFO commandstats)
 * over `requests` requests sent one after the other, once the validity cache is warm. Every
 * command Redis runs meanwhile counts: run it on a Redis nothing else uses, as the bench does.
 */
export async function redisCommandsPerRequest(redisUrl: string, target: Target, creds: BenchCredentials, kind: RequestKind, requests = 500): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 0 })
  const connection = new Connection(target.host, target.port)
  try {
    for (let i = 0; i < 3; i++) await connection.request(buildRequest(kind, target, creds))
    const before = await commandsRun(redis)
    for (let i = 0; i < requests; i++) {
      const answer = await connection.request(buildRequest(kind, target, creds))
      if (answer.status !== 200) throw new Error(`counting Redis commands: ${kind} answered ${answer.status} ${answer.body.slice(0, 200)}`)
    }
    const after = await commandsRun(redis)
    // The INFO calls are our own: the first is counted in `before`'s figures, the second in neither.
    return (after.all - before.all - (after.info - before.info)) / requests
  } finally {
    connection.close()
    redis.disconnect()
  }
}
