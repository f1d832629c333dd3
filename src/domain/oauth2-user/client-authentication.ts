import { E } from '../../errors/catalogue.ts'
import { ServiceError, assertThat } from '../../errors/service-error.ts'
import { parseBasicCredentials } from '../../protocol/oauth2/basic-credentials.ts'
import { constantTimeEqual } from '../../protocol/secrets.ts'
import type { AppRecord, OAuth2ClientRecord } from '../../storage/records.ts'
import { authenticateClient, type ClaimedClient } from '../client-authentication.ts'
import type { DomainDeps } from '../deps.ts'
import { param } from '../request.ts'
import { findClient } from './clients.ts'

/**
 * Client authentication at /2/oauth2/token and /2/oauth2/revoke, one rule for every grant and for
 * revocation (RFC 6749 §2.3.1, twitter-behaviour §9). A confidential client proves itself with its
 * secret, by HTTP Basic or `client_secret` in the body, or both when they agree (twitter-api-v2
 * sends both); a public client sends only `client_id`, an empty secret counting as none (Basic
 * `client_id:` as requests-oauthlib sends it). Checked before any code or refresh token is spent.
 */
export async function authenticateOAuth2Client(
  deps: Pick<DomainDeps, 'stores' | 'clock' | 'observe'>,
  input: { authorization: string | undefined; params: Array<[string, string]> },
): Promise<{ client: OAuth2ClientRecord; app: AppRecord }> {
  let basic: { clientId: string; clientSecret: string } | undefined
  try {
    basic = parseBasicCredentials(input.authorization)
  } catch {
    throw new ServiceError(E.oauth2InvalidClient, { detail: 'malformed Basic credentials' })
  }
  const bodyId = param(input.params, 'client_id')
  const bodySecret = param(input.params, 'client_secret') || undefined
  const basicSecret = basic?.clientSecret || undefined
  assertThat(!basic || bodyId === undefined || bodyId === basic.clientId, E.oauth2InvalidClient, { detail: 'client_id differs from Basic' })
  assertThat(!basicSecret || !bodySecret || constantTimeEqual(basicSecret, bodySecret), E.oauth2InvalidClient, { detail: 'client_secret differs from Basic' })
  const clientId = basic?.clientId ?? bodyId
  const secret = basicSecret ?? bodySecret
  if (!clientId) throw new ServiceError(E.oauth2MissingClientAuthentication, { detail: 'no client_id' })
  const client = await findClient(deps, clientId)
  if (client?.type === 'confidential') {
    assertThat(secret !== undefined, E.oauth2MissingClientAuthentication, { detail: 'confidential client without its secret' })
  }
  const authenticated = await authenticateClient(deps, claimedClient(deps, client), secret)
  if (!client || authenticated.refusal) throw new ServiceError(E.oauth2InvalidClient, { detail: 'client authentication failed' })
  return { client, app: authenticated.app }
}

/**
 * An OAuth 2.0 client as the shared step sees it: its secret, and the previous one while its grace
 * period lasts (regenerateClientSecret). An unknown id is a confidential client without secrets.
 */
function claimedClient(deps: Pick<DomainDeps, 'stores' | 'clock'>, client: OAuth2ClientRecord | undefined): ClaimedClient {
  const isGraceful = client?.previousSecretExpiresAtMs != null && client.previousSecretExpiresAtMs > deps.clock.nowMs()
  return {
    secrets: [client?.clientSecret ?? null, isGraceful ? client.previousClientSecret : null],
    isPublic: client?.type === 'public',
    app: async () => (client ? deps.stores.apps.findById(client.appId) : undefined),
  }
}
