import assert from 'node:assert/strict'
import type { OidcProvider } from '../../src/pages/oidc/provider-client.ts'
import { Browser, type PageAnswer } from './browser.ts'
import { listenProviderHost, signInAtProvider, type ProviderAccount, type ProviderHost, type TestOidcProvider } from './oidc-provider.ts'
import { startTestServer, type TestServer } from './test-app.ts'

export const CLIENT = { clientId: 'latchkey', clientSecret: 'provider-client-secret-0123456789' }

/** A provider entry of `--oidc-providers` for this issuer, as the settings make it. */
export function providerEntry(id: string, issuer: string, overrides: Partial<OidcProvider> = {}): OidcProvider {
  return {
    id,
    issuer,
    ...CLIENT,
    displayName: `Acme ${id}`,
    scopes: 'openid profile email',
    screenNameClaim: 'preferred_username',
    nameClaim: 'name',
    link: { create: true },
    tokenEndpointAuthMethod: 'client_secret_basic',
    ...overrides,
  }
}

export interface OidcWorld {
  t: TestServer
  host: ProviderHost
  provider: TestOidcProvider
  accounts: Map<string, ProviderAccount>
  close(): Promise<void>
}

/**
 * Latchkey listening with the given provider entries (all of one real node-oidc-provider, whose
 * client `latchkey` has each entry's callback registered).
 */
export async function startOidcWorld(entries: (issuer: string) => OidcProvider[], options: { otherClientIds?: string[]; server?: Parameters<typeof startTestServer>[0] } = {}): Promise<OidcWorld> {
  const host = await listenProviderHost()
  const providers = entries(host.issuer)
  const methods = providers.map((p) => ({ kind: 'oidc' as const, id: p.id, label: p.displayName }))
  const t = await startTestServer({ ...options.server, http: { oidcProviders: providers, signIn: { password: true, methods } } })
  const accounts = new Map<string, ProviderAccount>()
  const redirectUris = providers.map((p) => `${t.url}/login/oidc/${p.id}/callback`)
  const others = (options.otherClientIds ?? []).map((clientId) => ({ clientId, clientSecret: `${clientId}-secret-0123456789`, redirectUris }))
  const provider = host.serve({ clients: [{ ...CLIENT, redirectUris, authMethod: providers[0]?.tokenEndpointAuthMethod }, ...others], accounts })
  return {
    t,
    host,
    provider,
    accounts,
    async close() {
      await t.close()
      await host.close()
    },
  }
}

/** The start of a sign-in: Latchkey's 302 to the provider; its authorization URL. */
export async function startSignIn(browser: Browser, base: string, providerId: string, returnTo = '/console'): Promise<URL> {
  const answer = await browser.get(`${base}/login/oidc/${providerId}?return_to=${encodeURIComponent(returnTo)}`)
  assert.equal(answer.statusCode, 302, answer.body)
  return new URL(String(answer.headers.location))
}

/** A whole sign-in: start, the provider's login as `login`, and the browser's return (Latchkey's answer). */
export async function signInThrough(browser: Browser, base: string, providerId: string, login: string, returnTo = '/console'): Promise<PageAnswer> {
  const authorization = await startSignIn(browser, base, providerId, returnTo)
  return browser.get(await signInAtProvider(authorization.href, login))
}
