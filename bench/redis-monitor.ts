import { connect } from 'node:net'
import { once } from 'node:events'
import type { Redis } from 'ioredis'

/** One command Redis ran, as MONITOR reports it: its arguments, and its source (`lua` for a script's own). */
export interface MonitoredCommand {
  args: string[]
  source: string
}

/**
 * Redis's MONITOR on a socket of its own, read as the text it is. Not ioredis's `monitor()`: when
 * MONITOR's OK and the first command arrive in one packet, ioredis takes that command for the reply
 * to an empty queue and stops the connection with an error. Resolves once Redis monitors.
 */
export async function openMonitor(url: string, onCommand: (command: MonitoredCommand) => void): Promise<{ close(): void }> {
  const { hostname, port, username, password } = new URL(url)
  const socket = connect(Number(port || 6379), hostname)
  await once(socket, 'connect')
  const setUp = [...(password ? [['AUTH', ...(username ? [decodeURIComponent(username)] : []), decodeURIComponent(password)]] : []), ['MONITOR']]
  let pendingOks = setUp.length
  let monitoring = () => {}
  let refused = (_error: Error) => {}
  const ready = new Promise<void>((resolve, reject) => ((monitoring = resolve), (refused = reject)))
  let buffered = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => {
    buffered += chunk
    for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 2)
      if (line.startsWith('-')) refused(new Error(`Redis refused MONITOR: ${line.slice(1)}`))
      else if (pendingOks > 0) {
        if (--pendingOks === 0) monitoring()
      } else onCommand(parseMonitorLine(line))
    }
  })
  socket.on('error', (error) => refused(error))
  socket.write(setUp.map(encodeCommand).join(''))
  await ready
  return { close: () => socket.destroy() }
}

/**
 * The names of the commands on `prefix` that clients sent while `work` ran (a script's own
 * commands, reported from the source `lua`, are no round trip). MONITOR reports in the order Redis
 * ran them: what comes between two markers, read with `redis`, ran between them.
 */
export async function commandsSentDuring(redisUrl: string, redis: Redis, prefix: string, work: () => Promise<void>): Promise<string[]> {
  const [begin, end] = [`${prefix}monitor:begin`, `${prefix}monitor:end`]
  const seen: string[] = []
  let collecting = false
  let ended = () => {}
  const endSeen = new Promise<void>((resolve) => (ended = resolve))
  const monitor = await openMonitor(redisUrl, ({ args, source }) => {
    if (args.includes(begin)) collecting = true
    else if (args.includes(end)) ended()
    else if (collecting && !source.includes('lua') && args.some((arg) => arg.startsWith(prefix))) seen.push(args[0]!.toLowerCase())
  })
  try {
    await redis.get(begin)
    await work()
    await redis.get(end)
    await Promise.race([endSeen, new Promise((_, reject) => setTimeout(() => reject(new Error('MONITOR never showed the end marker')), 10_000).unref())])
    return seen
  } finally {
    monitor.close()
  }
}

/** A command in RESP, the form Redis reads. */
function encodeCommand(args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`
}

/** `+1712345678.123456 [0 127.0.0.1:50000] "set" "key" "va\"lue"`: its source and its arguments. */
export function parseMonitorLine(line: string): MonitoredCommand {
  const closing = line.indexOf(']')
  const source = line.slice(line.indexOf('[') + 1, closing)
  const args = [...line.slice(closing + 1).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => unescape(match[1]!))
  return { args, source }
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' }

/** Redis quotes an argument with backslash escapes: `\"`, `\\`, `\n` and the like, `\xHH`. */
function unescape(quoted: string): string {
  return quoted.replace(/\\(x[0-9a-f]{2}|.)/g, (_all, escaped: string) =>
    escaped.length === 3 ? String.fromCharCode(parseInt(escaped.slice(1), 16)) : (ESCAPES[escaped] ?? escaped))
}
