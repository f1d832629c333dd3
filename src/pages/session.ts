import type { FastifyReply, FastifyRequest } from 'fastify'
import type { SessionClaim } from '../domain/browser-sessions.ts'
import { constantTimeEqual, randomAlphanumeric } from '../protocol/secrets.ts'

/**
 * The browser session cookie, signed (HMAC by @fastify/cookie with the configured secret), holding
 * `csrf[:userId:sessionId:generation]`. A visitor who has not signed in holds only the CSRF value.
 * The cookie only claims a session: whether it is still live (not signed out, not ended by a
 * password change, disabling or sign-out-everywhere, within its idle and absolute limits) is
 * decided on the server on every request (src/domain/browser-sessions.ts, src/pages/visitor.ts).
 */
export const SESSION_COOKIE = 'latchkey_session'
/** Over HTTPS: the browser keeps a __Host- cookie only if Secure, Path=/ and without Domain, so no subdomain can set or shadow it. */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`

const CSRF = /^[A-Za-z0-9]{32}$/
const USER_ID = /^\d{1,20}$/
const SESSION_ID = /^[A-Za-z0-9]{32}$/
const GENERATION = /^\d{1,9}$/

export interface Session {
  /** Sent back in every form as csrf_token; a POST must carry the same value. */
  csrf: string
  /** Once signed in: the server-side session the cookie names. */
  claim?: SessionClaim | undefined
}

export const newSession = (): Session => ({ csrf: randomAlphanumeric(32) })

export const sessionCookieName = (request: FastifyRequest): string => (request.protocol === 'https' ? SECURE_SESSION_COOKIE : SESSION_COOKIE)

/** The session the request's cookie holds, without its claim when malformed; undefined if none or forged. */
export function readSession(request: FastifyRequest): Session | undefined {
  const cookie = request.cookies[sessionCookieName(request)]
  if (!cookie) return undefined
  const unsigned = request.unsignCookie(cookie)
  if (!unsigned.valid) return undefined
  const [csrf = '', userId = '', sessionId = '', generation = ''] = unsigned.value.split(':')
  if (!CSRF.test(csrf)) return undefined
  const isClaim = USER_ID.test(userId) && SESSION_ID.test(sessionId) && GENERATION.test(generation)
  return isClaim ? { csrf, claim: { userId, sessionId, generation: Number(generation) } } : { csrf }
}

/**
 * HttpOnly, SameSite=Lax, Path=/ (the consent pages, /console and /settings), Secure and
 * `__Host-`-named over https; Max-Age (the absolute lifetime) only once someone signed in.
 */
export function writeSession(request: FastifyRequest, reply: FastifyReply, session: Session, lifetimeSeconds?: number): void {
  const claim = session.claim
  const value = claim ? `${session.csrf}:${claim.userId}:${claim.sessionId}:${claim.generation}` : session.csrf
  reply.setCookie(sessionCookieName(request), value, {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: request.protocol === 'https',
    ...(claim && lifetimeSeconds !== undefined ? { maxAge: lifetimeSeconds } : {}),
  })
}

/** CSRF: the form's token must equal the one in the signed cookie (constant-time compare). */
export function isCsrfValid(session: Session, submitted: string | undefined): boolean {
  return submitted !== undefined && constantTimeEqual(session.csrf, submitted)
}
