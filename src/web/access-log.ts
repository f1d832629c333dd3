import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify'
import pino, { type Bindings, type ChildLoggerOptions, type Logger } from 'pino'
import { connectionOf, requestPath } from './request-url.ts'

/** What a line is made of in pino: the time field, the logger's bindings (`,"pid":…,"hostname":…`), its output. */
interface PinoInternals {
  levelVal: number
  [pino.symbols.timeSym]: () => string
  [pino.symbols.chindingsSym]: string
  [pino.symbols.streamSym]: { write(line: string): unknown }
}

/** pino's number for `info`, the access line's level. */
const INFO = 30

/** A user agent longer than this is cut: the line stays one short line whatever a client sends. */
const USER_AGENT_CHARS = 200

/**
 * The access log: one line per request, written when its answer is finished, with the method, the
 * path without its query (a query may carry tokens and verifiers), the status, the time in ms, the
 * client's address (as the trusted-proxy rules give it) and user agent, and the request id. The
 * line is the one `request.log.info({ method, path, status, ms, addr, ua }, message)` would write,
 * byte for byte, but built directly: its fields have a fixed shape and none of them can hold a
 * secret (the query is cut off, the request id is ours), so pino's general path (merging the
 * object, the redaction pass, serializing arbitrary values) and the request's child logger are
 * skipped; the request id (a UUID of ours) and the method (one Node's parser knows) need no escaping,
 * and the address is the one the request's checks used (connectionOf). It goes to the logger's own stream, in order with every other line (pino's asynchronous
 * destination in production, which writes lines out in batches). Bench shape 0 measures it.
 *
 * Fastify calls `requestCompleted` for every answer once it is finished (after the onResponse
 * hooks); this controller writes no other request line of Fastify's own (incoming, errors: our error
 * handlers log those that matter, with their reasons).
 */
export class AccessLog extends LogController {
  readonly #logger: PinoInternals
  readonly #message: string
  readonly #enabled: boolean
  readonly #pathOf: (request: FastifyRequest) => string

  /** `enabled: false` is `--access-log off`: the proxy in front logs requests. */
  /** `pathOf`: the path as logged, where a path itself may hold a one-time value (the admin API's login challenges). */
  constructor(logger: Logger, options: { message: string; enabled: boolean; pathOf?: (request: FastifyRequest) => string }) {
    super({ disableRequestLogging: true })
    this.#logger = logger as unknown as PinoInternals
    this.#message = `,"msg":${JSON.stringify(options.message)}}\n`
    this.#enabled = options.enabled
    this.#pathOf = options.pathOf ?? requestPath
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const logger = this.#logger
    if (!this.#enabled || logger.levelVal > INFO) return
    const line =
      `{"level":${INFO}${logger[pino.symbols.timeSym]()}${logger[pino.symbols.chindingsSym]},"reqId":"${request.id}"` +
      `,"method":"${request.method}","path":${JSON.stringify(this.#pathOf(request))}` +
      `,"status":${reply.statusCode},"ms":${Math.round(reply.elapsedTime)},"addr":${JSON.stringify(connectionOf(request).ip)}` +
      `,"ua":${JSON.stringify((request.headers['user-agent'] ?? '').slice(0, USER_AGENT_CHARS))}${this.#message}`
    logger[pino.symbols.streamSym].write(line)
  }
}

/**
 * Fastify gives every request a child logger bound to its id; pino's is costly to build, and most
 * requests never log anything but their access line (AccessLog, which needs none). This factory
 * gives a stand-in that builds the real child on its first use, so error and refusal lines still
 * carry the request id.
 */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChild(logger, bindings, options) as unknown as FastifyBaseLogger
}

type LogCall = (...args: unknown[]) => void

class LazyChild {
  #real: FastifyBaseLogger | undefined
  readonly #parent: FastifyBaseLogger
  readonly #bindings: Bindings
  readonly #options: ChildLoggerOptions

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  #child(): FastifyBaseLogger {
    return (this.#real ??= this.#parent.child(this.#bindings, this.#options))
  }

  #log(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    const child = this.#child()
    ;(child[level] as LogCall).apply(child, args)
  }

  get level(): string {
    return this.#real?.level ?? this.#options.level ?? this.#parent.level
  }

  set level(level: string) {
    this.#child().level = level
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#child().child(bindings, options)
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args)
  }
  error(...args: unknown[]): void {
    this.#log('error', args)
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args)
  }
  info(...args: unknown[]): void {
    this.#log('info', args)
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args)
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args)
  }
  silent(): void {}
}
