import pino, { type Logger, type LoggerOptions } from 'pino'

/** Log lines are written out once this many bytes have gathered (about 20 access lines)... */
const BATCH_BYTES = 4096

/** ...or this often, whichever comes first: a line reaches the output at most this late. */
const FLUSH_MS = 100

/** How often a "log lines dropped" line is written while lines are being dropped. */
const DROP_REPORT_MS = 5_000

/**
 * JSON logs in production, pretty ones in development. Nothing we log carries a secret: request
 * lines have the path without its query, and the redaction list is a second line of defence.
 */
export function createLogger(options: { dev: boolean; level: string; bufferBytes?: number }): Logger {
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
  // Lines go out together, a write(2) once BATCH_BYTES have gathered or every FLUSH_MS, instead of
  // one per line (each hands a write to a libuv thread on the server's own core); pino flushes what
  // is left when the process exits. While the output is slow or blocked (a full pipe, a stalled
  // disk) lines wait in memory up to bufferBytes; past it they are dropped and counted rather than
  // held without bound.
  const maxLength = options.bufferBytes
  const minLength = Math.min(BATCH_BYTES, Math.floor((maxLength ?? Infinity) / 2))
  const destination = pino.destination({ dest: 1, sync: false, minLength, periodicFlush: FLUSH_MS, ...(maxLength ? { maxLength } : {}) })
  const logger = pino(settings, destination)
  reportDrops(logger, destination)
  return logger
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
