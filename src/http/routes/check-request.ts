// docs/check-request.md: a resource server asks about a whole request it received.
import type { FastifyInstance } from 'fastify'
import { checkRequest, CHECK_REQUEST_LIMIT, type Verdict } from '../../domain/check-request.ts'
import type { Caller } from '../../domain/identify-caller.ts'
import type { DomainDeps } from '../../domain/deps.ts'
import { limitHeaders, setLimitHeaders } from '../../web/plugins/rate-limit.ts'
import { refusalAnswer } from '../../web/json-errors.ts'
import { requestInput } from '../request-input.ts'

/** Who is calling, as a resource server needs it; no credential or secret of theirs. */
export function callerAnswer(caller: Caller) {
  const isUser = caller.context === 'user'
  return {
    token_kind: caller.kind,
    app_id: caller.app.id,
    consumer_key: caller.app.consumerKey,
    app_name: caller.app.name,
    access_level: caller.accessLevel,
    ...(isUser ? { user_id: caller.user.id, screen_name: caller.user.screenName } : {}),
    ...(isUser && caller.scopes ? { scopes: caller.scopes } : {}),
  }
}

/** `showReasons` (development only): a refusal carries the server's reason, as the API's own x-latchkey-reason header does. */
function verdictAnswer(verdict: Verdict, showReasons: boolean) {
  if ('refusal' in verdict) {
    const { detail } = verdict.refusal
    return { valid: false, refusal: refusalAnswer(verdict.refusal), ...(showReasons && detail ? { reason: detail } : {}) }
  }
  return { valid: true, caller: callerAnswer(verdict.caller), ...(verdict.callerLimit ? { rate_limit_headers: limitHeaders(verdict.callerLimit) } : {}) }
}

export function checkRequestRoutes(deps: DomainDeps, publicUrl: URL | undefined, errors: { showReasons: boolean }) {
  return async (app: FastifyInstance) => {
    app.post('/latchkey/check-request', { config: { rateLimit: CHECK_REQUEST_LIMIT } }, async (request, reply) => {
      const { verdict, limit } = await checkRequest(deps, requestInput(request, publicUrl))
      setLimitHeaders(reply, limit)
      // Why the checked request was refused is the operator's to read, as for the service's own routes.
      if ('refusal' in verdict) request.log.info({ code: verdict.refusal.code, detail: verdict.refusal.detail }, 'checked request refused')
      return reply.type('application/json; charset=utf-8').send(verdictAnswer(verdict, errors.showReasons))
    })
  }
}
