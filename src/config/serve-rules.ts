import { isIP } from 'node:net'
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
  if ((config.tlsCert === undefined) !== (config.tlsKey === undefined)) {
    throw new ConfigError('invalid setting tlsCert/tlsKey: give both --tls-cert and --tls-key, or neither')
  }
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
