// Existing accounts (docs/accounts.md): the part of a sign-in at an upstream OpenID Connect
// provider or at the platform's own login page that both share. The browser leaves with a one-time
// value (`state`, `login_challenge`) bound to its session cookie and comes back with it; the value
// is spent once, by that browser, before it expires, and then the person is signed in as after a
// password (same throttle, session, audit, "disabled wins").
import type { FastifyReply, FastifyRequest } from 'fastify'
import { signInLinked, type LinkPolicy, type UpstreamIdentity } from '../domain/accounts/linked-sign-in.ts'
import type { DomainDeps } from '../domain/deps.ts'
import type { SignInThrottle } from '../domain/sign-in.ts'
import { E } from '../errors/catalogue.ts'
import { ServiceError } from '../errors/service-error.ts'
import { randomAlphanumeric } from '../protocol/secrets.ts'
import type { ExternalSignInKind, ExternalSignInRecord, ExternalSignInRefusal } from '../storage/account-types.ts'
import { safeNext } from './console/context.ts'
import { sendRedirect } from './reply.ts'
import { readSession } from './session.ts'
import { beginSession, visitorOf } from './visitor.ts'

const CONSENT_PAGES = /^\/(oauth\/(authorize|authenticate)|i\/oauth2\/authorize)\?[^#\s]{1,4000}$/

/**
 * Where a sign-in may come back to: a consent page of this service (its query kept, but for
 * `force_login`: the person has just signed in afresh) or a console page (safeNext). Never another
 * site, so the start route cannot be used as an open redirect.
 */
export function safeReturnTo(value: string | undefined): string {
  if (value === undefined || !CONSENT_PAGES.test(value)) return safeNext(value)
  const url = new URL(value, 'http://pages.invalid')
  url.searchParams.delete('force_login')
  return `${url.pathname}${url.search}`
}

/** What a sign-in's start records besides its value and its browser. */
export interface ExternalStart {
  kind: ExternalSignInKind
  provider: string
  returnTo: string
  lifetimeSeconds: number
  appId?: string | undefined
  loginHint?: string | undefined
  forceLogin?: boolean
  secrets?: ExternalSignInRecord['secrets']
}

/**
 * Records a sign-in about to leave for `start.provider`, bound to this browser's session cookie
 * (made now if it has none); the one-time value to send with it (43 random characters).
 */
export async function beginExternalSignIn(domain: DomainDeps, request: FastifyRequest, reply: FastifyReply, start: ExternalStart): Promise<string> {
  const { session } = await visitorOf(domain, request, reply)
  const id = randomAlphanumeric(43)
  const nowMs = domain.clock.nowMs()
  await domain.stores.externalSignIns.create({
    id,
    kind: start.kind,
    provider: start.provider,
    browser: session.csrf,
    returnTo: safeReturnTo(start.returnTo),
    appId: start.appId,
    loginHint: start.loginHint,
    forceLogin: start.forceLogin ?? false,
    secrets: start.secrets,
    createdAtMs: nowMs,
    expiresAtMs: nowMs + start.lifetimeSeconds * 1000,
  })
  return id
}

const REFUSALS: Record<ExternalSignInRefusal, (typeof E)[keyof typeof E]> = {
  unknown: E.externalSignInUnknown,
  used: E.externalSignInUsed,
  expired: E.externalSignInExpired,
  other_browser: E.externalSignInOtherBrowser,
}

/**
 * Spends the one-time value the browser came back with: the sign-in it started, or a clear page
 * (unknown, used, expired, started in another browser). A value of another kind is unknown here.
 */
export async function takeExternalSignIn(domain: DomainDeps, request: FastifyRequest, id: string | undefined, kind: ExternalSignInKind): Promise<ExternalSignInRecord> {
  if (!id || id.length > 200) throw new ServiceError(E.externalSignInUnknown)
  // A browser without a session cookie is another browser than the one that started it: the value
  // is spent for it too (no cookie value is empty).
  const browser = readSession(request)?.csrf ?? ''
  const taken = await domain.stores.externalSignIns.consume(id, browser, domain.clock.nowMs())
  if ('refused' in taken) throw new ServiceError(REFUSALS[taken.refused])
  if (taken.record.kind !== kind) throw new ServiceError(E.externalSignInUnknown)
  return taken.record
}

/**
 * Signs in the person of `identity` for a spent sign-in (signInLinked: counted, audited, disabled
 * wins), begins their browser session (kept across browser restarts only when `remember`), and
 * sends the browser back where the sign-in started. A refusal is thrown as the pages' error page.
 */
export async function finishExternalSignIn(
  deps: { domain: DomainDeps; throttle: SignInThrottle },
  request: FastifyRequest,
  reply: FastifyReply,
  signIn: { record: ExternalSignInRecord; identity: UpstreamIdentity; policy: LinkPolicy; remember: boolean },
): Promise<FastifyReply> {
  const { domain, throttle } = deps
  const user = await signInLinked({ ...domain, throttle }, { identity: signIn.identity, policy: signIn.policy, address: request.ip, appId: signIn.record.appId })
  // Fresh (no password asked again before secrets) only when the upstream was made to authenticate
  // afresh (force_login: prompt=login and max_age=0, checked against auth_time); else it may have
  // answered from a session of its own, at a browser someone left.
  await beginSession(domain, request, reply, user, { remember: signIn.remember, isFresh: signIn.record.forceLogin })
  return sendRedirect(reply, signIn.record.returnTo)
}
