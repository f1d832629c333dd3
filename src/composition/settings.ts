import { readFileSync } from 'node:fs'
import type { HttpSettings } from '../app.ts'
import { ConfigError } from '../config/load.ts'
import type { Config } from '../config/settings.ts'
import type { DomainDeps } from '../domain/deps.ts'
import { parseOidcProviders, type OidcProviderConfig } from '../config/oidc-providers.ts'
import type { HomeSettings } from '../pages/home-routes.ts'
import { delegationMethod, type DelegationSettings, type ExternalSignInMethod, type SignInOptions } from '../pages/sign-in-methods.ts'

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
  const oidcProviders = oidcProvidersOf(config)
  return {
    dev: config.dev || config.test,
    publicUrl: config.publicUrl ? new URL(config.publicUrl) : undefined,
    cookieSecret: cookieSecrets(config, domain),
    hsts: config.hsts,
    allowSignup: config.allowSignup,
    signIn: signInOptions(config, oidcProviders),
    oidcProviders,
    delegation: delegationOf(config),
    autoConsent: config.autoConsent,
    accessLog: config.accessLog,
    home: config.home ? parts.home : undefined,
    trustProxy: config.trustProxy ? config.trustProxy.split(',').map((s) => s.trim()).filter(Boolean) : [],
    ...(parts.https ? { https: parts.https } : {}),
  }
}

/** How people sign in on the pages: a password unless off, the OpenID Connect providers, and login delegation when a login URL is set. */
function signInOptions(config: Config, providers: readonly OidcProviderConfig[]): SignInOptions {
  const oidc: ExternalSignInMethod[] = providers.map((provider) => ({ kind: 'oidc', id: provider.id, label: provider.displayName }))
  return { password: config.passwordSignIn, methods: [...oidc, ...(config.loginUrl ? [delegationMethod(config.loginName)] : [])] }
}

function delegationOf(config: Config): DelegationSettings | undefined {
  if (!config.loginUrl) return undefined
  const policy = config.loginLink === 'create' ? { create: true as const } : { matchBy: config.loginLink }
  return { loginUrl: new URL(config.loginUrl), label: config.loginName, challengeSeconds: config.loginChallengeSeconds, policy }
}

/** The OpenID Connect providers of `--oidc-providers`, read and checked at start. */
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
