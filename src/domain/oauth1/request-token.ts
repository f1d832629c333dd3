import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { randomAlphanumeric, randomBase64Url } from '../../protocol/secrets.ts'
import type { AccessLevel, AppRecord, RequestTokenRecord } from '../../storage/records.ts'
import { callbackOrigin, changeWithAudit } from '../audit.ts'
import { matchCallback } from '../callback-url.ts'
import type { DomainDeps } from '../deps.ts'
import { extraParam, type ParsedOAuthRequest } from './parse-signed-request.ts'
import { afterCharge, type Limited } from '../rate-limits.ts'
import { verifySignedRequest } from './verify-signed-request.ts'
import type { RequestInput } from '../request.ts'
import type { RateLimitedResource } from '../rate-limit-table.ts'

/** What this use case touches. */
export type RequestTokenDeps = Pick<DomainDeps, 'stores' | 'clock' | 'settings' | 'limiters' | 'observe'>

/** The limit every call counts against (the route's address limit too: src/web/plugins/rate-limit.ts). */
export const REQUEST_TOKEN_LIMIT = '/oauth/request_token' satisfies RateLimitedResource

/**
 * service-spec §4.1, POST /oauth/request_token: a consumer-signed request with oauth_callback
 * (a registered URL or `oob`) gets a single-use request token that expires.
 */
export async function issueRequestToken(deps: RequestTokenDeps, input: RequestInput): Promise<Limited<{ requestToken: RequestTokenRecord }>> {
  const { app, request, limit } = await verifySignedRequest(deps, input, { tokenKind: 'none', charge: REQUEST_TOKEN_LIMIT, required: ['oauth_callback'] })
  return afterCharge(limit, async () => ({ requestToken: await issueFor(deps, input, app, request) }))
}

async function issueFor(deps: RequestTokenDeps, input: RequestInput, app: AppRecord, request: ParsedOAuthRequest): Promise<RequestTokenRecord> {
  const callback = acceptedCallback(app, request.protocol.get('oauth_callback') as string)
  const accessLevel = requestedAccessLevel(app, extraParam(request, 'svc_auth_access_type', 'x_auth_access_type'))
  const nowMs = deps.clock.nowMs()
  const record: RequestTokenRecord = {
    token: randomBase64Url(20),
    secret: randomAlphanumeric(32),
    appId: app.id,
    callback,
    accessLevel,
    status: 'issued',
    userId: null,
    verifierFailures: 0,
    createdAtMs: nowMs,
    expiresAtMs: nowMs + deps.settings.requestTokenTtlSeconds * 1000,
  }
  // One transaction: the token is never kept without its audit row (nor the row without the token).
  await changeWithAudit(deps, async (tx, audit) => {
    await tx.requestTokens.create(record)
    await audit({
      event: 'request_token.issued',
      appId: app.id,
      address: input.clientAddress,
      detail: { callback: callbackOrigin(callback), access_level: accessLevel },
    })
  })
  deps.observe?.tokenIssued('request_token')
  return record
}

/** `oob` for every app; a URL only for web apps and only when it matches a registered one. */
function acceptedCallback(app: AppRecord, callback: string): string {
  if (callback === 'oob') return callback
  assertThat(app.type !== 'desktop', E.desktopOnlyOob)
  const matched = matchCallback(app.callbackUrls, callback)
  assertThat(matched, E.callbackNotApproved)
  return matched
}

/** svc_auth_access_type (or Twitter's x_auth_access_type) can only lower the app's level. */
function requestedAccessLevel(app: AppRecord, requested: string | undefined): AccessLevel {
  if (requested === undefined) return app.accessLevel
  if (requested === 'read') return 'read'
  if (requested === 'write') return app.accessLevel === 'read' ? 'read' : 'read-write'
  throw new ServiceError(E.invalidParameter, { message: 'svc_auth_access_type must be read or write' })
}
