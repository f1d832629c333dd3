import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LiveSession } from '../../domain/browser-sessions.ts'
import type { DomainDeps } from '../../domain/deps.ts'
import { limitSubject, spend } from '../../domain/rate-limits.ts'
import type { SignInThrottle } from '../../domain/sign-in.ts'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import type { UserRecord } from '../../storage/records.ts'
import type { Limiter } from '../../storage/types.ts'
import { sendPage, sendRedirect } from '../reply.ts'
import { onlyMethod, startPath, type SignInOptions } from '../sign-in-methods.ts'
import { signInPage } from '../views/frame.ts'
import { postedForm, visitorOf, type Visitor } from '../visitor.ts'

export interface PageContext {
  domain: DomainDeps
  throttle: SignInThrottle
  allowSignup: boolean
  /** `--public-url`: the scheme and host pages name this service by (else the request's own). */
  publicUrl: URL | undefined
  limits: { pages: Limiter; changes: Limiter; signUps: Limiter }
  signIn: SignInOptions
}

/** The pages' limits are SERVICE_LIMITS' console ones: requests per address, changes per account, sign-ups per address. */
export function createPageContext(domain: DomainDeps, throttle: SignInThrottle, allowSignup: boolean, publicUrl: URL | undefined, signIn: SignInOptions): PageContext {
  const { consolePages, consoleChanges, consoleSignUps } = domain.limiters.service
  return { domain, throttle, allowSignup, publicUrl, limits: { pages: consolePages, changes: consoleChanges, signUps: consoleSignUps }, signIn }
}

/** Counts one hit of a page limit; past it the page is a 429. */
export async function spendPageLimit(limiter: Limiter, key: string): Promise<void> {
  await spend(limiter, key, () => new ServiceError(E.rateLimitExceeded, { detail: 'console page limit' }))
}

export const addressKey = (request: FastifyRequest) => limitSubject.address(request.ip)

/** Where a sign-in may lead: only our own pages, so the form cannot be used as an open redirect. */
const NEXT = /^\/(console(\/apps\/\d{1,20}(\/failures|\/oauth-tool)?)?|settings\/(connected_apps|sessions|password))$/
export const safeNext = (next: string | undefined): string => (next && NEXT.test(next) ? next : '/console')

const SIGN_IN_HEADINGS: Record<string, string> = {
  '/settings/connected_apps': 'Sign in to see your connected apps',
  '/settings/sessions': 'Sign in to see your sessions',
  '/settings/password': 'Sign in to change your password',
}

export function showSignIn(context: PageContext, reply: FastifyReply, visitor: Pick<Visitor, 'session'>, next: string, options: { status?: number; message?: string; username?: string } = {}) {
  const only = onlyMethod(context.signIn)
  // The one way left to sign in: go there at once rather than show a page with one button.
  if (only) return sendRedirect(reply, startPath(only, safeNext(next)))
  const heading = SIGN_IN_HEADINGS[next] ?? 'Sign in to the developer console'
  const page = signInPage({
    csrfToken: visitor.session.csrf,
    next: safeNext(next),
    heading,
    usernamePrefill: options.username ?? '',
    message: options.message,
    allowSignup: context.allowSignup,
    signInOptions: context.signIn,
  })
  return sendPage(reply, options.status ?? 200, page, { kind: 'self' })
}

/** A GET that needs a person: the visitor, or undefined once the sign-in page has been sent. */
export type Person = Visitor & { user: UserRecord; live: LiveSession }

export async function personOrSignIn(context: PageContext, request: FastifyRequest, reply: FastifyReply, next: string): Promise<Person | undefined> {
  const visitor = await visitorOf(context.domain, request, reply)
  if (visitor.user && visitor.live) return { ...visitor, user: visitor.user, live: visitor.live }
  await showSignIn(context, reply, visitor, next)
  return undefined
}

/**
 * A POST that changes something: CSRF checked, the person signed in (else back to the sign-in page),
 * one change counted against their account.
 */
export async function personPosting(context: PageContext, request: FastifyRequest, reply: FastifyReply): Promise<(Person & { fields: Map<string, string> }) | undefined> {
  const form = await postedForm(context.domain, request)
  if (!form.user || !form.live) {
    await sendRedirect(reply, '/console')
    return undefined
  }
  await spendPageLimit(context.limits.changes, `user:${form.user.id}`)
  return { ...form, user: form.user, live: form.live }
}
