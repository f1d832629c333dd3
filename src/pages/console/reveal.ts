import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppRecord } from '../../storage/records.ts'

/**
 * After an app is created or its keys regenerated, the browser is sent to the app's page, which
 * shows the consumer secret that once. What marks "that once" is this short-lived signed cookie,
 * scoped to the app's page and cleared when the page is shown. It holds no secret: the person, the
 * app and the consumer key, so it is worth nothing to anyone else or after another regeneration.
 */
const REVEAL_COOKIE = 'latchkey_reveal'
const REVEAL_SECONDS = 300

const pathOf = (app: AppRecord) => `/console/apps/${app.id}`
const valueOf = (userId: string, app: AppRecord) => `${userId}:${app.id}:${app.consumerKey}`

export function markSecretToReveal(request: FastifyRequest, reply: FastifyReply, userId: string, app: AppRecord): void {
  reply.setCookie(REVEAL_COOKIE, valueOf(userId, app), {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    path: pathOf(app),
    secure: request.protocol === 'https',
    maxAge: REVEAL_SECONDS,
  })
}

/** True when this browser is to see the app's secret (the mark is left in place). */
export function hasSecretToReveal(request: FastifyRequest, userId: string, app: AppRecord): boolean {
  const cookie = request.cookies[REVEAL_COOKIE]
  if (!cookie) return false
  const unsigned = request.unsignCookie(cookie)
  return unsigned.valid && unsigned.value === valueOf(userId, app)
}

/** True (and the mark cleared) when this browser is to see the app's secret now. */
export function takeSecretToReveal(request: FastifyRequest, reply: FastifyReply, userId: string, app: AppRecord): boolean {
  const cookie = request.cookies[REVEAL_COOKIE]
  if (!cookie) return false
  reply.clearCookie(REVEAL_COOKIE, { path: pathOf(app) })
  return hasSecretToReveal(request, userId, app)
}
