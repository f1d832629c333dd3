import { Redis } from 'ioredis'
import { Connection } from './http-client.ts'
import { commandsSentDuring } from './redis-monitor.ts'
import { buildRequest, type BenchCredentials, type RequestKind, type Target } from './shapes.ts'

/**
 * The Redis round trips one request of `kind` costs: the commands Latchkey's own connections send
 * (seen with MONITOR, which also reports each command a script runs, from the source `lua`: those
 * are not counted) over `requests` requests sent one after the other, once the validity cache is
 * warm. Only commands on the deployment's key prefix count.
 */
export async function redisCommandsPerRequest(redisUrl: string, keyPrefix: string, target: Target, creds: BenchCredentials, kind: RequestKind, requests = 500): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 0 })
  const connection = new Connection(target.host, target.port)
  const send = async () => {
    const answer = await connection.request(buildRequest(kind, target, creds))
    if (answer.status !== 200) throw new Error(`counting Redis commands: ${kind} answered ${answer.status} ${answer.body.slice(0, 200)}`)
  }
  try {
    for (let i = 0; i < 3; i++) await send()
    const sent = await commandsSentDuring(redisUrl, redis, keyPrefix, async () => {
      for (let i = 0; i < requests; i++) await send()
    })
    return sent.length / requests
  } finally {
    connection.close()
    redis.disconnect()
  }
}
