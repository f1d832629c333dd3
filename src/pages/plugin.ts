import fastifyCookie from '@fastify/cookie'
import type { FastifyInstance } from 'fastify'
import type { DomainDeps } from '../domain/deps.ts'
import type { SignInThrottle } from '../domain/sign-in.ts'
import { consoleAccountRoutes } from './console/account-routes.ts'
import { consoleAppRoutes } from './console/app-routes.ts'
import { consoleWebhookRoutes } from './console/webhook-routes.ts'
import { addressKey, createPageContext, spendPageLimit } from './console/context.ts'
import { consentRoutes } from './consent-routes.ts'
import { delegatedLoginRoutes } from './delegated-login-routes.ts'
import { PASSWORD_ONLY, type DelegationSettings, type SignInOptions } from './sign-in-methods.ts'
import { homeRoutes, type HomeSettings } from './home-routes.ts'
import { oauth2ConsentRoutes } from './oauth2-consent-routes.ts'
import { installPageErrors } from './error-page.ts'
import { sudoRoutes } from './console/sudo.ts'
import { accountSettingsRoutes } from './settings/account-routes.ts'
import { connectedAppsRoutes } from './settings/connected-apps-routes.ts'
import { oidcRoutes } from './oidc/routes.ts'
import type { OidcProvider } from './oidc/provider-client.ts'

/** The HTTP settings the pages read (a part of the app's, src/app.ts). */
export interface PageSettings {
  /** Development mode: the front door shows the demo. */
  dev: boolean
  publicUrl: URL | undefined
  /** Signs the consent pages' session cookies; with several, the first signs and all are accepted (rotation). */
  cookieSecret: string | string[]
  /** Anyone may create an account at /console/signup. */
  allowSignup?: boolean
  /** The front door at / and the docs at /docs/ (`--home`, default on); undefined: off. */
  home?: HomeSettings | undefined
  /**
   * Test mode's `--auto-consent SCREEN_NAME`: every authorize page approves at once as this person
   * and answers what "Authorize app" would have (the redirect, or the PIN page). Undefined: off.
   */
  autoConsent?: string | undefined
  /** How people sign in on the consent pages and the console: a password (unless turned off) and the ways of docs/accounts.md. */
  signIn?: SignInOptions | undefined
  /** Login delegation (`--login-url`); undefined: off. */
  delegation?: DelegationSettings | undefined
  /** The OpenID Connect providers of `--oidc-providers` (docs/accounts.md); their methods are in `signIn`. */
  oidcProviders?: readonly OidcProvider[] | undefined
}

/** What the pages are built from: the domain, the sign-in throttle the composition root made, their settings. */
export interface PagesDeps {
  domain: DomainDeps
  throttle: SignInThrottle
  http: PageSettings
}

/**
 * The browser pages as their own encapsulated context: cookies and the HTML error renderer apply
 * here only, never to the JSON API.
 */
export function pagesPlugin({ domain, throttle, http }: PagesDeps) {
  const signIn = http.signIn ?? PASSWORD_ONLY
  // No password, no sign-up: people then come from the platform's own accounts.
  const context = createPageContext(domain, throttle, (http.allowSignup ?? false) && signIn.password, http.publicUrl, signIn)
  return async (app: FastifyInstance) => {
    await app.register(fastifyCookie, { secret: http.cookieSecret })
    installPageErrors(app)
    if (http.home) await app.register(homeRoutes(http.home, { dev: http.dev, publicUrl: http.publicUrl }))
    const consentOptions = { autoConsent: http.autoConsent, signIn: http.signIn }
    await app.register(consentRoutes(domain, throttle, consentOptions))
    await app.register(oauth2ConsentRoutes(domain, throttle, consentOptions))
    if (http.delegation) await app.register(delegatedLoginRoutes({ domain, throttle, delegation: http.delegation, pageLimit: context.limits.pages }))
    // The developer console, the settings pages and the sign-ins elsewhere: every request counts against its address.
    await app.register(async (pages) => {
      pages.addHook('onRequest', async (request) => spendPageLimit(context.limits.pages, addressKey(request)))
      await pages.register(consoleAccountRoutes(context))
      await pages.register(consoleAppRoutes(context))
      await pages.register(consoleWebhookRoutes(context))
      await pages.register(connectedAppsRoutes(context))
      await pages.register(accountSettingsRoutes(context))
      await pages.register(sudoRoutes(context))
      const providers = http.oidcProviders ?? []
      if (providers.length > 0) await pages.register(oidcRoutes({ domain, throttle, providers, publicUrl: http.publicUrl }))
    })
  }
}
