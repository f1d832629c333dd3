import pino, { type Logger, type LoggerOptions } from 'pino'

type Destination = ReturnType<typeof pino.destination>

/** The production destination of each logger, for closeLog. */
const destinations = new WeakMap<Logger, Destination>()

/** How often a "log lines dropped" line is written while lines are being dropped. */
const DROP_REPORT_MS = 5_000

/**
 * JSON logs in production, pretty ones in development. Nothing we log carries a secret: request
 * lines have the path without its query, and the redaction list is a second line of defence.
 */
/** `fd`: where the JSON lines go (default 1, stdout; the test mode's go to 2; the bench's to /dev/null). */
export function createLogger(options: { dev: boolean; level: string; bufferBytes?: number; fd?: number }): Logger {
  const settings: LoggerOptions = {
    level: options.level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.consumerSecret', '*.secret', '*.token'],
      censor: '[redacted]',
    },
    ...(options.dev
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname', destination: 2 } } }
      : {}),
  }
  if (options.dev) return pino(settings)
  // Lines written while a write is in flight go out together in the next one, instead of one
  // write(2) per line on the event loop; pino flushes what is left when the process exits. While
  // the output is slow or blocked (a full pipe, a stalled disk) lines wait in memory up to
  // bufferBytes; past it they are dropped and counted rather than held without bound.
  const destination = pino.destination({
    dest: options.fd ?? 1,
    sync: false,
    contentMode: 'buffer',
    ...(options.bufferBytes ? { maxLength: options.bufferBytes } : {}),
  })
  const logger = pino(settings, asBytes(destination))
  destinations.set(logger, destination)
  reportDrops(logger, destination)
  return logger
}

/**
 * The destination in its buffer mode, handed each line as bytes: in its text mode it measures the
 * whole pending text again for each line written while a write is in flight (a cost per line that
 * grows with the batch); in buffer mode it keeps the lengths and joins the lines once per write.
 */
function asBytes(destination: Destination): pino.DestinationStream & Pick<Destination, 'flush' | 'flushSync'> {
  return {
    write: (line: string) => destination.write(Buffer.from(line) as unknown as string),
    flush: (callback?: (error?: Error) => void) => destination.flush(callback),
    flushSync: () => destination.flushSync(),
  }
}

/**
 * Resolves once every line logged so far is written, in order, and the log is closed: for just
 * before process.exit. pino's flush answers at once for this unbuffered destination, and its exit
 * handler's synchronous write could overtake a write still in flight (the last lines out of order).
 */
export function closeLog(logger: Logger): Promise<void> {
  const destination = destinations.get(logger)
  if (!destination) return Promise.resolve()
  return new Promise((resolve) => {
    destination.once('close', () => resolve())
    destination.end()
  })
}

/**
 * Every few seconds while lines are dropped, one line with the total dropped so far: a total, so
 * that a report dropped in turn loses nothing (the next one says it).
 */
function reportDrops(logger: Logger, destination: ReturnType<typeof pino.destination>): void {
  let dropped = 0
  let reported = 0
  destination.on('drop', () => void dropped++)
  const timer = setInterval(() => {
    if (dropped === reported) return
    reported = dropped
    logger.warn({ droppedLogLines: dropped }, 'log lines dropped: the log output is not keeping up')
  }, DROP_REPORT_MS)
  timer.unref()
}
