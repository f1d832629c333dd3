import type { FastifyReply, FastifyRequest } from 'fastify'
import { constantTimeEqual, randomAlphanumeric } from '../protocol/secrets.ts'

/**
 * The browser session: one signed cookie (HMAC by @fastify/cookie with the configured secret)
 * holding `csrf[:userId:issuedAtMs]`. A visitor who has not signed in holds only the CSRF value.
 * Sessions last 30 days from sign-in, checked here as well as by the cookie's Max-Age. They are
 * stateless: signing out clears the cookie, but a copied cookie stays valid until it expires.
 */
export const SESSION_COOKIE = 'latchkey_session'
export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60

const CSRF = /^[A-Za-z0-9]{32}$/
const USER_ID = /^\d{1,20}$/

export interface Session {
  /** Sent back in every form as csrf_token; a POST must carry the same value. */
  csrf: string
  userId?: string | undefined
  issuedAtMs?: number | undefined
}

export const newSession = (): Session => ({ csrf: randomAlphanumeric(32) })

/** The valid session from the request, without its user once expired; undefined if none or forged. */
export function readSession(request: FastifyRequest, nowMs: number): Session | undefined {
  const cookie = request.cookies[SESSION_COOKIE]
  if (!cookie) return undefined
  const unsigned = request.unsignCookie(cookie)
  if (!unsigned.valid) return undefined
  const [csrf = '', userId = '', issuedAt = ''] = unsigned.value.split(':')
  if (!CSRF.test(csrf)) return undefined
  const issuedAtMs = Number(issuedAt)
  const isLive =
    USER_ID.test(userId) && Number.isSafeInteger(issuedAtMs) && issuedAtMs <= nowMs && nowMs - issuedAtMs < SESSION_LIFETIME_SECONDS * 1000
  return isLive ? { csrf, userId, issuedAtMs } : { csrf }
}

/**
 * HttpOnly, SameSite=Lax, Secure over https; Max-Age only once someone signed in. Path=/ so the one
 * session covers the consent pages, /console and /settings (and a later __Host- name needs it).
 */
export function writeSession(request: FastifyRequest, reply: FastifyReply, session: Session): void {
  const signedIn = session.userId !== undefined && session.issuedAtMs !== undefined
  const value = signedIn ? `${session.csrf}:${session.userId}:${session.issuedAtMs}` : session.csrf
  reply.setCookie(SESSION_COOKIE, value, {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: request.protocol === 'https',
    ...(signedIn ? { maxAge: SESSION_LIFETIME_SECONDS } : {}),
  })
}

/** CSRF: the form's token must equal the one in the signed cookie (constant-time compare). */
export function isCsrfValid(session: Session, submitted: string | undefined): boolean {
  return submitted !== undefined && constantTimeEqual(session.csrf, submitted)
}
