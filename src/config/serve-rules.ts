import { isIP } from 'node:net'
import { isPostgresUrl } from '../storage/urls.ts'
import { ConfigError } from './load.ts'
import type { Config } from './settings.ts'

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '[::1]') return true
  return isIP(host) === 4 && host.startsWith('127.')
}

/**
 * The rules `latchkey serve` adds to the settings: development allows plain HTTP only on a loopback
 * address; production needs HTTPS, from its own certificate or from a trusted reverse proxy.
 */
export function checkServeRules(config: Config): void {
  checkSharedState(config)
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    throw new ConfigError('invalid setting tlsCert/tlsKey: give both --tls-cert and --tls-key, or neither')
  }
  checkAdminListener(config)
  if (config.dev) {
    if (!isLoopbackHost(config.host) && !config.tlsCert) {
      throw new ConfigError(`invalid setting host (${config.host}): development mode serves plain HTTP on a loopback address only`)
    }
    return
  }
  if (!config.tlsCert && !config.trustProxy) {
    throw new ConfigError(
      'production mode requires HTTPS: give --tls-cert and --tls-key, or --trust-proxy with your TLS proxy\'s addresses (or use --dev on a laptop)',
    )
  }
}

/**
 * Nonces and rate-limit counters live in memory unless Redis is given. With several processes each
 * would keep its own: a nonce used on one would be accepted on another, and every limit would be
 * multiplied by the number of processes. So more than one worker needs Redis, and so does
 * PostgreSQL (a shared database means other instances can be started) unless --single-instance
 * says that this is the only one.
 */
function checkSharedState(config: Config): void {
  if (config.redis) return
  if (config.workers > 1) {
    throw new ConfigError(
      `invalid setting workers (${config.workers}): more than one worker needs --redis, so that nonces and rate limits are shared by every process`,
    )
  }
  if (isPostgresUrl(config.database) && !config.singleInstance) {
    throw new ConfigError(
      'invalid setting redis: PostgreSQL without --redis keeps nonces and rate limits in this process only; give --redis, or --single-instance if this is the only Latchkey process',
    )
  }
}

/**
 * The admin API hands out credentials: off a loopback address it speaks TLS itself, in every mode
 * (a trusted proxy is not enough: nothing says the admin port is behind it).
 */
function checkAdminListener(config: Config): void {
  if (config.adminPort === undefined || isLoopbackHost(config.adminHost) || config.tlsCert) return
  throw new ConfigError(
    `invalid setting adminHost (${config.adminHost}): the admin API off a loopback address requires TLS: give --tls-cert and --tls-key, or --admin-host 127.0.0.1`,
  )
}
