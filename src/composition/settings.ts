import { readFileSync } from 'node:fs'
import type { HttpSettings } from '../app.ts'
import { ConfigError } from '../config/load.ts'
import type { Config } from '../config/settings.ts'
import type { DomainDeps } from '../domain/deps.ts'
import { parseOidcProviders, type OidcProviderConfig } from '../config/oidc-providers.ts'
import type { HomeSettings } from '../pages/home-routes.ts'
import type { ExternalSignInMethod } from '../pages/sign-in-methods.ts'

/** The certificate and key of `--tls-cert` and `--tls-key`, read at start; undefined without them. */
export function tlsOf(config: Config): { cert: Buffer; key: Buffer } | undefined {
  if (!config.tlsCert || !config.tlsKey) return undefined
  return { cert: readPem(config.tlsCert, 'tlsCert'), key: readPem(config.tlsKey, 'tlsKey') }
}

function readPem(path: string, setting: string): Buffer {
  try {
    return readFileSync(path)
  } catch (error) {
    throw new ConfigError(`invalid setting ${setting} (${path}): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`)
  }
}

/** The public app's settings, from the config. */
export function httpSettings(
  config: Config,
  domain: DomainDeps,
  parts: { https: { cert: Buffer; key: Buffer } | undefined; home: HomeSettings },
): HttpSettings {
  return {
    dev: config.dev || config.test,
    publicUrl: config.publicUrl ? new URL(config.publicUrl) : undefined,
    cookieSecret: cookieSecrets(config, domain),
    hsts: config.hsts,
    allowSignup: config.allowSignup,
    autoConsent: config.autoConsent,
    accessLog: config.accessLog,
    home: config.home ? parts.home : undefined,
    ...signInOf(config),
    trustProxy: config.trustProxy ? config.trustProxy.split(',').map((s) => s.trim()).filter(Boolean) : [],
    ...(parts.https ? { https: parts.https } : {}),
  }
}

/** The OpenID Connect providers of `--oidc-providers`, read and checked at start, and the sign-in methods they add. */
function signInOf(config: Config): Pick<HttpSettings, 'signIn' | 'oidcProviders'> {
  const providers = oidcProvidersOf(config)
  const methods: ExternalSignInMethod[] = providers.map((provider) => ({ kind: 'oidc', id: provider.id, label: provider.displayName }))
  return { oidcProviders: providers, signIn: { password: true, methods } }
}

export function oidcProvidersOf(config: Config): OidcProviderConfig[] {
  if (!config.oidcProviders) return []
  let text: string
  try {
    text = readFileSync(config.oidcProviders, 'utf8')
  } catch (error) {
    throw new ConfigError(`invalid setting oidcProviders (${config.oidcProviders}): ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`)
  }
  return parseOidcProviders(text, config.oidcProviders)
}

/**
 * What signs session cookies: the configured secret, or one derived from the master keyring (so
 * every instance that shares the keys shares sessions). The first signs; the derived secret of
 * versions before HKDF is still accepted, so sessions from before the upgrade keep working.
 */
function cookieSecrets(config: Config, domain: DomainDeps): string[] {
  if (config.cookieSecret) return [config.cookieSecret]
  return [domain.runtime.deriveSecret('cookie-signing'), domain.runtime.legacyDerivedSecret('cookie')]
}
