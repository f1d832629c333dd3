import { ACCESS_DENIED } from '../../errors/catalogue.ts'
import { randomAlphanumeric } from '../../protocol/secrets.ts'
import { changeWithAudit } from '../audit.ts'
import type { DomainDeps } from '../deps.ts'
import { redirectWith, type AuthorizationRequest } from './authorization-request.ts'
import { CODE_TTL_MS } from './lifetimes.ts'

/**
 * The person's answer on the consent page (RFC 6749 §4.1.2): Allow makes a single-use code, bound
 * to the client, the redirect URI, the challenge and the scopes, for 30 seconds; Cancel sends the
 * app `access_denied`. Either way with the app's state.
 */
export async function approveAuthorizationRequest(
  deps: Pick<DomainDeps, 'stores' | 'clock' | 'observe'>,
  request: AuthorizationRequest,
  input: { userId: string; address: string | null },
): Promise<{ redirectTo: string }> {
  const code = randomAlphanumeric(64)
  const nowMs = deps.clock.nowMs()
  await changeWithAudit(deps, async (tx, audit) => {
    await tx.oauth2Codes.create(code, {
      appId: request.app.id,
      userId: input.userId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      challengeMethod: request.challengeMethod,
      scopes: request.scopes,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + CODE_TTL_MS,
    })
    await audit({ event: 'consent.granted', appId: request.app.id, userId: input.userId, address: input.address, detail: { flow: 'oauth2', scopes: request.scopes } })
    await audit({ event: 'oauth2_code.issued', appId: request.app.id, userId: input.userId, address: input.address, detail: { scopes: request.scopes } })
  })
  deps.observe?.tokenIssued('authorization_code')
  return { redirectTo: redirectWith(request.redirectUri, { state: request.state, code }) }
}

export async function denyAuthorizationRequest(
  deps: Pick<DomainDeps, 'stores' | 'clock'>,
  request: AuthorizationRequest,
  input: { userId: string | undefined; address: string | null },
): Promise<{ redirectTo: string }> {
  await changeWithAudit(deps, (_tx, audit) =>
    audit({ event: 'consent.denied', appId: request.app.id, userId: input.userId ?? null, address: input.address, detail: { flow: 'oauth2', scopes: request.scopes } }),
  )
  return { redirectTo: redirectWith(request.redirectUri, { error: ACCESS_DENIED, state: request.state }) }
}
