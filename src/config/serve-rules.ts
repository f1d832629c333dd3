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
  if (config.test) return checkTestMode(config)
  if (config.seed !== undefined || config.autoConsent !== undefined) {
    throw new ConfigError(`invalid setting ${config.seed !== undefined ? 'seed' : 'autoConsent'}: it belongs to the test mode (--test) only`)
  }
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

/**
 * The test mode's powers (a movable clock, consent by a call, injected failures) must never reach a
 * service people use: it runs alone, on the embedded database, plain HTTP on loopback addresses.
 */
function checkTestMode(config: Config): void {
  const refuse = (setting: string, why: string) => {
    throw new ConfigError(`invalid setting ${setting}: the test mode (--test) ${why}`)
  }
  if (config.dev) refuse('dev', 'is a mode of its own: give --test or --dev, not both')
  if (!isLoopbackHost(config.host)) refuse(`host (${config.host})`, 'listens on a loopback address only')
  if (!isLoopbackHost(config.adminHost)) refuse(`adminHost (${config.adminHost})`, 'listens on a loopback address only')
  if (config.tlsCert || config.tlsKey) refuse('tlsCert/tlsKey', 'serves plain HTTP on a loopback address, without TLS')
  if (isPostgresUrl(config.database)) refuse('database', 'runs on the embedded database (a throwaway file by default), not PostgreSQL')
  if (config.redis) refuse('redis', 'keeps nonces and limits in its own process, not in Redis')
  if (config.workers > 1) refuse('workers', 'runs one process')
  if (config.trustProxy) refuse('trustProxy', 'takes requests from the test suite directly, not through a proxy')
  if (config.publicUrl && !isLoopbackHost(new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, ''))) refuse('publicUrl', 'answers on a loopback address only')
  if (config.adminPort === undefined) refuse('adminPort', 'needs the admin listener: its control calls are there')
}
