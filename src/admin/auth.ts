import type { FastifyInstance, FastifyRequest } from 'fastify'
import { adminTokenActor, withAuditActor } from '../domain/actor.ts'
import { PROBLEM_TYPES, ProblemError } from './problem.ts'
import { findLiveAdminToken } from '../domain/admin/admin-tokens.ts'
import type { DomainDeps } from '../domain/deps.ts'
import { spend } from '../domain/rate-limits.ts'
import { setLimitHeaders } from '../web/plugins/rate-limit.ts'
import type { AdminTokenRecord } from '../storage/admin-types.ts'
import type { LimitState } from '../storage/types.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin token of this request (set by the auth hook). */
    adminToken: AdminTokenRecord
    /** The domain acting as that token: its audit rows name it. */
    adminDomain: DomainDeps
  }
}

const BEARER = /^Bearer +(\S+) *$/i

/**
 * Every admin request presents a live admin token (looked up on each request, so a revocation is
 * seen at once by every instance) and counts against that token's limit.
 */
export function installAdminAuth(app: FastifyInstance, domain: DomainDeps): void {
  // Generous (SERVICE_LIMITS.adminCalls): admin tools page through lists.
  const limiter = domain.limiters.service.adminCalls
  app.decorateRequest('adminToken', null as unknown as AdminTokenRecord)
  app.decorateRequest('adminDomain', null as unknown as DomainDeps)
  app.addHook('onRequest', async (request, reply) => {
    const token = await authenticate(domain, request)
    const refusal = (state: LimitState) => {
      setLimitHeaders(reply, state)
      return new ProblemError(429, PROBLEM_TYPES.rateLimited, 'This admin token has made too many calls; see x-rate-limit-reset.')
    }
    setLimitHeaders(reply, (await spend(limiter, token.id, refusal)).limit)
    request.adminToken = token
    request.adminDomain = withAuditActor(domain, adminTokenActor(token.id))
  })
}

async function authenticate(domain: DomainDeps, request: FastifyRequest): Promise<AdminTokenRecord> {
  const presented = BEARER.exec(request.headers.authorization ?? '')?.[1]
  if (presented === undefined) throw new ProblemError(401, PROBLEM_TYPES.unauthorized, 'Give an admin token: Authorization: Bearer <token>.')
  const token = await findLiveAdminToken(domain, presented)
  if (!token) throw new ProblemError(401, PROBLEM_TYPES.unauthorized, 'The admin token is unknown or revoked.')
  return token
}
