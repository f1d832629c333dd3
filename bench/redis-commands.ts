import { Redis } from 'ioredis'
import { Connection } from './http-client.ts'
import { buildRequest, type BenchCredentials, type RequestKind, type Target } from './shapes.ts'

/**
 * The Redis round trips one request of `kind` costs: the commands Latchkey's own connections send
 * (seen with MONITOR, which also reports each command a script runs, from the source `lua`: those
 * are not counted) over `requests` requests sent one after the other, once the validity cache is
 * warm. Only commands on the deployment's key prefix count; the bench's markers frame the window.
 */
export async function redisCommandsPerRequest(redisUrl: string, keyPrefix: string, target: Target, creds: BenchCredentials, kind: RequestKind, requests = 500): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 0 })
  const monitor = await redis.monitor()
  const connection = new Connection(target.host, target.port)
  const [begin, end] = [`${keyPrefix}bench:begin`, `${keyPrefix}bench:end`]
  let counting = false
  let sent = 0
  let ended = () => {}
  const endSeen = new Promise<void>((resolve) => (ended = resolve))
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args.includes(begin)) counting = true
    else if (args.includes(end)) ended()
    else if (counting && !source.includes('lua') && args.some((arg) => arg.startsWith(keyPrefix))) sent++
  })
  try {
    for (let i = 0; i < 3; i++) await connection.request(buildRequest(kind, target, creds))
    await redis.get(begin)
    for (let i = 0; i < requests; i++) {
      const answer = await connection.request(buildRequest(kind, target, creds))
      if (answer.status !== 200) throw new Error(`counting Redis commands: ${kind} answered ${answer.status} ${answer.body.slice(0, 200)}`)
    }
    await redis.get(end)
    await endSeen
    return sent / requests
  } finally {
    connection.close()
    monitor.disconnect()
    redis.disconnect()
  }
}
