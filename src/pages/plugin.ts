import fastifyCookie from '@fastify/cookie'
import type { FastifyInstance } from 'fastify'
import type { AppDeps } from '../app.ts'
import { createSignInThrottle, type SignInThrottle } from '../domain/sign-in.ts'
import { consentRoutes } from './consent-routes.ts'
import { installPageErrors } from './error-page.ts'

/**
 * The browser pages as their own encapsulated context: cookies and the HTML error renderer apply
 * here only, never to the JSON API. `throttle` defaults to one on the stores' limiters.
 */
export function pagesPlugin(deps: AppDeps, options: { throttle?: SignInThrottle } = {}) {
  const throttle = options.throttle ?? createSignInThrottle(deps.domain.runtime.limiters, deps.domain.settings)
  return async (app: FastifyInstance) => {
    await app.register(fastifyCookie, { secret: deps.http.cookieSecret })
    installPageErrors(app)
    await app.register(consentRoutes(deps.domain, throttle))
  }
}
