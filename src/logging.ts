import pino, { type Logger, type LoggerOptions } from 'pino'

/**
 * JSON logs in production, pretty ones in development. Nothing we log carries a secret: request
 * lines have the path without its query, and the redaction list is a second line of defence.
 */
export function createLogger(options: { dev: boolean; level: string }): Logger {
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
  // write(2) per line on the event loop; pino flushes what is left when the process exits.
  return pino(settings, pino.destination({ dest: 1, sync: false }))
}
