import pino, { type Logger } from 'pino'

/**
 * JSON logs in production, pretty ones in development. Nothing we log carries a secret: request
 * lines have the path without its query, and the redaction list is a second line of defence.
 */
export function createLogger(options: { dev: boolean; level: string }): Logger {
  return pino({
    level: options.level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.consumerSecret', '*.secret', '*.token'],
      censor: '[redacted]',
    },
    ...(options.dev
      ? { transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname', destination: 2 } } }
      : {}),
  })
}
