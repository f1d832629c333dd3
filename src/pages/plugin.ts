import fastifyCookie from '@fastify/cookie'
import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../app-deps.ts'
import { createSignInThrottle, type SignInThrottle } from '../domain/sign-in.ts'
import { consoleAccountRoutes } from './console/account-routes.ts'
import { consoleAppRoutes } from './console/app-routes.ts'
import { addressKey, createPageContext, spend } from './console/context.ts'
import { consentRoutes } from './consent-routes.ts'
import { homeRoutes } from './home-routes.ts'
import { oauth2ConsentRoutes } from './oauth2-consent-routes.ts'
import { installPageErrors } from './error-page.ts'
import { sudoRoutes } from './console/sudo.ts'
import { accountSettingsRoutes } from './settings/account-routes.ts'
import { connectedAppsRoutes } from './settings/connected-apps-routes.ts'

/**
 * The browser pages as their own encapsulated context: cookies and the HTML error renderer apply
 * here only, never to the JSON API. `throttle` defaults to one on the stores' limiters.
 */
export function pagesPlugin(deps: AppDeps, options: { throttle?: SignInThrottle } = {}) {
  const throttle = options.throttle ?? createSignInThrottle(deps.domain.runtime.limiters, deps.domain.settings, deps.domain.stores.signInUnlocks)
  const context = createPageContext(deps.domain, throttle, deps.http.allowSignup ?? false, deps.http.publicUrl)
  return async (app: FastifyInstance) => {
    await app.register(fastifyCookie, { secret: deps.http.cookieSecret })
    installPageErrors(app)
    if (deps.http.home) await app.register(homeRoutes(deps.http.home, { dev: deps.http.dev, publicUrl: deps.http.publicUrl }))
    const consentOptions = { autoConsent: deps.http.autoConsent }
    await app.register(consentRoutes(deps.domain, throttle, consentOptions))
    await app.register(oauth2ConsentRoutes(deps.domain, throttle, consentOptions))
    // The developer console and the settings pages: every request counts against its address.
    await app.register(async (pages) => {
      pages.addHook('onRequest', async (request) => spend(context.limits.pages, addressKey(request)))
      await pages.register(consoleAccountRoutes(context))
      await pages.register(consoleAppRoutes(context))
      await pages.register(connectedAppsRoutes(context))
      await pages.register(accountSettingsRoutes(context))
      await pages.register(sudoRoutes(context))
    })
  }
}
